import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFY_AFTER_COMMIT } from '../src/db/postgres.js';
import { OUTBOX_CHANNEL, signalOutbox } from '../src/outbox/signal.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * Issue 26: on PostgreSQL each per-request read costs about one round trip. Every statement the
 * app sends to the pool is recorded (text and prepared-statement name) while one request runs.
 */
const onPostgres = STORE === 'postgres';
let h: Harness;
let biz: TestBusiness;
const sent: { text: string; name: string | undefined }[] = [];
const clients = new Set<pg.PoolClient>();

beforeAll(async () => {
  h = await startHarness();
  biz = await h.newBusiness();
  const pool = h.store.pgPool as pg.Pool | undefined;
  pool?.on('acquire', (client) => {
    clients.add(client);
    const marked = client as pg.PoolClient & { roundTripsCounted?: boolean };
    if (marked.roundTripsCounted) return;
    marked.roundTripsCounted = true;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text: string; name?: string };
      sent.push(typeof first === 'string' ? { text: first, name: undefined } : { text: first.text, name: first.name });
      return query(...args);
    };
  });
});
afterAll(() => h.close());

/**
 * What a request sends, without the outbox notification a writer asks for, which the pool sends
 * on its own connection after the COMMIT (db/postgres.ts) and may land in the next request's list.
 */
async function statementsOf(run: () => Promise<{ status: number }>, status = 200) {
  sent.length = 0;
  const res = await run();
  expect(res.status).toBe(status);
  return sent.filter((q) => q.text !== 'select pg_notify($1, $2)');
}

describe.skipIf(!onPostgres)('the business totals row on PostgreSQL', () => {
  async function client() {
    const c = new pg.Client({ connectionString: h.databaseUrl });
    await c.connect();
    return c;
  }
  const insertDue = (c: pg.Client, businessId: string, contactId: string) =>
    c.query(
      `insert into transactions (id, business_id, contact_id, amount_paise, currency, status, open, direction,
         due_date, reminder_count, claim_count, pay_token, created_at, updated_at)
       values (gen_random_uuid(), $1, $2, 100, 'INR', 'pending', 1, 'receivable', '2030-01-01', 0, 0,
         md5(random()::text), now(), now())`,
      [businessId, contactId],
    );
  const dataVersion = async (businessId: string) => {
    const { rows } = await (h.store.pgPool as pg.Pool).query<{ data_version: number }>(
      'select data_version from business_totals where business_id = $1',
      [businessId],
    );
    return Number(rows[0]?.data_version);
  };

  it('is not locked by a transaction that has written dues, and its data version moves once at commit', async () => {
    const other = await h.newBusiness();
    const made = await other.post('/v1/contacts', { name: 'Lock Buyer' });
    expect(made.status).toBe(201);
    const before = await dataVersion(other.business.id);
    const writer = await client();
    const probe = await client();
    try {
      await writer.query('begin');
      await insertDue(writer, other.business.id, made.body.data.id);
      await insertDue(writer, other.business.id, made.body.data.id);
      // Before: the statement trigger had already locked the row here, until the writer's COMMIT.
      await probe.query('begin');
      const locked = await probe.query('select 1 from business_totals where business_id = $1 for update nowait', [
        other.business.id,
      ]);
      expect(locked.rowCount).toBe(1);
      await probe.query('rollback');
      expect(await dataVersion(other.business.id)).toBe(before);
      await writer.query('commit');
      expect(await dataVersion(other.business.id)).toBe(before + 1);
    } finally {
      await writer.end();
      await probe.end();
    }
  });

  it('moves the data version of a rolled-back transaction not at all', async () => {
    const other = await h.newBusiness();
    const made = await other.post('/v1/contacts', { name: 'Rollback Buyer' });
    const before = await dataVersion(other.business.id);
    const writer = await client();
    try {
      await writer.query('begin');
      await insertDue(writer, other.business.id, made.body.data.id);
      await writer.query('rollback');
    } finally {
      await writer.end();
    }
    expect(await dataVersion(other.business.id)).toBe(before);
  });
});

describe.skipIf(!onPostgres)('the outbox signal on PostgreSQL', () => {
  it('is sent after the writer commits, and not at all when it rolls back', async () => {
    const listener = new pg.Client({ connectionString: h.databaseUrl });
    await listener.connect();
    const heard: string[] = [];
    const waiters: { channel: string; resolve: () => void }[] = [];
    listener.on('notification', (n) => {
      heard.push(n.channel);
      for (const w of waiters.filter((x) => x.channel === n.channel)) w.resolve();
    });
    const next = (channel: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no notification on ${channel} within 5 s`)), 5000);
        waiters.push({
          channel,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    try {
      await listener.query(`listen ${OUTBOX_CHANNEL}`);
      await listener.query('listen lean_test_marker');
      const pool = h.store.pgPool as pg.Pool;

      await expect(
        h.store.db.transaction().execute(async (trx) => {
          await signalOutbox(trx);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      // A marker sent after the rollback arrives after anything the rolled-back writer sent.
      const marker = next('lean_test_marker');
      await pool.query(`select pg_notify('lean_test_marker', '')`);
      await marker;
      expect(heard).toEqual(['lean_test_marker']);

      const arrived = next(OUTBOX_CHANNEL);
      await h.store.db.transaction().execute(async (trx) => {
        await signalOutbox(trx);
        // Still in the transaction: nothing was sent (the listener's round trip would carry it).
        await listener.query('select 1');
        expect(heard).toEqual(['lean_test_marker']);
      });
      await arrived;
      expect(heard).toEqual(['lean_test_marker', OUTBOX_CHANNEL]);
    } finally {
      await listener.end();
    }
  });
});

describe.skipIf(!onPostgres)('round trips per request on PostgreSQL', () => {
  let id: string;
  let contactId: string;
  beforeAll(async () => {
    const created = await biz.post('/v1/transactions', {
      amount_paise: 1000,
      due_date: '2030-01-01',
      contact_name: 'Round Trip Buyer',
    });
    expect(created.status).toBe(201);
    id = created.body.data.id;
    contactId = created.body.data.contact_id;
    // The key cache starts listening for key changes on the first authentication; until the
    // LISTEN is in place keys are read every time. Asked again until a request reads nothing.
    const deadline = Date.now() + 5000;
    while ((await statementsOf(() => biz.get('/v1/me'))).length > 0) {
      if (Date.now() > deadline) throw new Error('the API key was still read from the store after 5 s');
    }
  });

  it('authenticates from the key cache: GET one due is the due and its sequence steps, the summary one statement', async () => {
    const one = await statementsOf(() => biz.get(`/v1/transactions/${id}`));
    // PRODUCT part 13 shows a due's reminder steps beside it: a second, prepared statement.
    expect(one.map((q) => q.text)).toEqual([
      expect.stringMatching(/from "transactions"/),
      expect.stringMatching(/from "reminders"/),
    ]);
    const summary = await statementsOf(() => biz.get('/v1/summary'));
    expect(summary.map((q) => q.text)).toEqual([expect.stringMatching(/from "business_totals"/)]);
  });

  it('reads a contact with its balances in one statement', async () => {
    const contact = await statementsOf(() => biz.get(`/v1/contacts/${contactId}`));
    expect(contact.map((q) => q.text)).toEqual([expect.stringMatching(/from "contacts" as "c"/)]);
  });

  it('creates a due with the totals as the last statement before COMMIT', async () => {
    const create = await statementsOf(
      () => biz.post('/v1/transactions', { amount_paise: 1000, due_date: '2030-01-01', contact_id: contactId }),
      201,
    );
    const texts = create.map((q) => q.text);
    expect(texts[0]).toBe('begin');
    expect(texts.at(-1)).toBe('commit');
    // One statement: the totals UPDATE, whose output the pending and open days' upserts read.
    expect(texts.at(-2)).toMatch(
      /^with "totals" as \(update "business_totals" .*insert into "pending_by_day".*insert into "open_by_day"/,
    );
    expect(texts.filter((t) => /business_totals|pending_by_day|open_by_day/.test(t))).toHaveLength(1);
    // The outbox signal is only noted in the transaction (never sent inside it: db/postgres.ts).
    expect(texts).toContain(NOTIFY_AFTER_COMMIT);
  });

  it('sends the hot reads as named prepared statements', async () => {
    const one = await statementsOf(() => biz.get(`/v1/transactions/${id}`));
    const summary = await statementsOf(() => biz.get('/v1/summary'));
    // pg keeps, per connection, the statements it prepared under a name.
    const preparedByName = new Set<string>();
    for (const client of clients) {
      const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection
        .parsedStatements;
      for (const text of Object.values(parsed)) preparedByName.add(text);
    }
    for (const q of [...one, ...summary]) expect(preparedByName).toContain(q.text);
  });
});
