import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  h = await startHarness();
  biz = await h.newBusiness();
  const pool = h.store.pgPool as pg.Pool | undefined;
  pool?.on('acquire', (client) => {
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

async function statementsOf(run: () => Promise<{ status: number }>, status = 200) {
  sent.length = 0;
  const res = await run();
  expect(res.status).toBe(status);
  return [...sent];
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
        waiters.push({ channel, resolve: () => (clearTimeout(timer), resolve()) });
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
  it('prints', async () => {
    const created = await biz.post('/v1/transactions', {
      amount_paise: 1000,
      due_date: '2030-01-01',
      contact_name: 'Round Trip Buyer',
    });
    const id = created.body.data.id as string;
    const contactId = created.body.data.contact_id as string;
    await biz.get(`/v1/transactions/${id}`);
    for (const [what, run] of [
      ['one', () => biz.get(`/v1/transactions/${id}`)],
      ['summary', () => biz.get('/v1/summary')],
      ['contact', () => biz.get(`/v1/contacts/${contactId}`)],
      ['list', () => biz.get('/v1/transactions?status=pending')],
      [
        'create',
        () => biz.post('/v1/transactions', { amount_paise: 1000, due_date: '2030-01-01', contact_id: contactId }),
      ],
    ] as const) {
      const s = await statementsOf(run, what === 'create' ? 201 : 200);
      console.log(
        what,
        s.length,
        s.map((x) => `${x.name ?? '-'}: ${x.text.slice(0, 90).replace(/\s+/g, ' ')}`),
      );
    }
  });
});
