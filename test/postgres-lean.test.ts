import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFY_AFTER_COMMIT } from '../src/db/postgres/queries.js';
import type { Database } from '../src/db/schema.js';
import { OUTBOX_CHANNEL, signalOutbox } from '../src/outbox/signal.js';
import { addPendingDue, applyPayment } from '../src/totals/aggregates.js';
import { readTotals } from '../src/totals/read.js';
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
 * on its own connection after the COMMIT (db/postgres/queries.ts) and may land in the next request's list.
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
      'select sum(data_version) as data_version from business_totals where business_id = $1',
      [businessId],
    );
    return Number(rows[0]?.data_version);
  };

  it('is not locked by a transaction that has written dues, and its data version moves once at commit', async () => {
    const other = await h.newBusiness();
    const made = await other.post('/v1/contacts', { name: 'Lock Buyer' });
    expect(made.status).toBe(201);
    // The buyer owes already: a first due would move the count of buyers who owe, which writes (and
    // locks) the writer's own shard of the totals at once, and that shard may be one the probe reads.
    const owed = await other.post('/v1/transactions', {
      contact_id: made.body.data.id,
      amount_paise: 500,
      due_date: '2030-01-01',
    });
    expect(owed.status).toBe(201);
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
      expect(locked.rowCount).toBeGreaterThan(0);
      await probe.query('rollback');
      expect(await dataVersion(other.business.id)).toBe(before);
      await writer.query('commit');
      expect(await dataVersion(other.business.id)).toBe(before + 1);
    } finally {
      await writer.end();
      await probe.end();
    }
  });

  it('lets two transactions of one business write its totals at once, from connections on different shards', async () => {
    const other = await h.newBusiness();
    const businessId = other.business.id;
    // Single-connection stores, each told its shard (its backend's pid % 16); two that differ.
    const opened: Kysely<Database>[] = [];
    const shardOf = async (db: Kysely<Database>) =>
      Number((await sql<{ s: number }>`select pg_backend_pid() % 16 as s`.execute(db)).rows[0]?.s);
    try {
      const byShard = new Map<number, Kysely<Database>>();
      while (byShard.size < 2) {
        if (opened.length >= 17) throw new Error('17 connections and fewer than 2 shards');
        const db = new Kysely<Database>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: h.databaseUrl, max: 1 }) }),
        });
        opened.push(db);
        // A write that had to wait for the other's row fails here instead of hanging the test.
        await sql`set lock_timeout = '5s'`.execute(db);
        byShard.set(await shardOf(db), db);
      }
      const [a, b] = [...byShard.values()] as [Kysely<Database>, Kysely<Database>];
      await a.transaction().execute(async (trxA) => {
        await addPendingDue(trxA, businessId, '2030-01-01', 100);
        // A holds its shard's totals and day rows until it commits; B's create and its payment, on
        // the same business and day, go through meanwhile.
        await b.transaction().execute(async (trxB) => {
          await addPendingDue(trxB, businessId, '2030-01-01', 250);
          await applyPayment(trxB, {
            businessId,
            fromStatus: 'pending',
            dueDate: '2030-01-01',
            paise: 250,
            settles: true,
            amountPaise: 250,
            month: '2026-11',
          });
        });
      });
      const totals = await readTotals(h.store.db, businessId, '2026-11-21', '2026-11');
      expect(totals.pending).toEqual({ count: 1, paise: 100 });
      expect(totals.paid).toEqual({ count: 1, paise: 250 });
      expect(totals.paidThisMonthPaise).toBe(250);
      const days = await h.store.db
        .selectFrom('pending_by_day')
        .select([sql<number>`sum(due_count)`.as('n'), sql<number>`count(*)`.as('rows')])
        .where('business_id', '=', businessId)
        .executeTakeFirstOrThrow();
      // A's shard holds the day's due; B's day row came to 0 dues and 0 paise: deleted.
      expect({ n: Number(days.n), rows: Number(days.rows) }).toEqual({ n: 1, rows: 1 });
    } finally {
      await Promise.all(opened.map((db) => db.destroy()));
    }
  });

  it('moves the data version with the totals, so that the trigger at COMMIT writes the row no second time', async () => {
    const other = await h.newBusiness();
    const made = await other.post('/v1/contacts', { name: 'Version Buyer' });
    const contactId = made.body.data.id as string;
    const businessId = other.business.id;
    // A write of the totals and a change to a due, in either order: the version moves once.
    for (const totalsFirst of [true, false]) {
      const before = await dataVersion(businessId);
      await h.store.db.transaction().execute(async (trx) => {
        if (totalsFirst) await addPendingDue(trx, businessId, '2030-01-01', 100);
        await sql`insert into transactions (id, business_id, contact_id, amount_paise, currency, status, open,
            direction, due_date, reminder_count, claim_count, pay_token, created_at, updated_at)
          values (gen_random_uuid(), ${businessId}, ${contactId}, 100, 'INR', 'pending', 1, 'receivable',
            '2030-01-01', 0, 0, md5(random()::text), now(), now())`.execute(trx);
        if (!totalsFirst) await addPendingDue(trx, businessId, '2030-01-01', 100);
        // What the trigger reads at COMMIT: this business's version has moved in this transaction.
        const moved = await sql<{
          b: string;
        }>`select current_setting('receivables.data_version_moved', true) as b`.execute(trx);
        expect(moved.rows[0]?.b).toBe(businessId);
      });
      expect(await dataVersion(businessId)).toBe(before + 1);
    }
    // A create through the API (one statement, no BEGIN): once per create.
    const before = await dataVersion(businessId);
    for (let i = 0; i < 3; i++) {
      const res = await other.post('/v1/transactions', {
        amount_paise: 500,
        due_date: '2030-01-02',
        contact_id: contactId,
      });
      expect(res.status).toBe(201);
    }
    expect(await dataVersion(businessId)).toBe(before + 3);
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
  // A server of its own: the other tests' creates leave a repeat NOTIFY due up to
  // NOTIFY_SPACING_MS later from their pool, which this listener would hear as a stray.
  let own: Harness;
  beforeAll(async () => {
    own = await startHarness();
  });
  afterAll(() => own?.close());

  it('is sent after the writer commits, and not at all when it rolls back', async () => {
    const listener = new pg.Client({ connectionString: own.databaseUrl });
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
      const pool = own.store.pgPool as pg.Pool;

      await expect(
        own.store.db.transaction().execute(async (trx) => {
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
      await own.store.db.transaction().execute(async (trx) => {
        await signalOutbox(trx);
        // Still in the transaction: nothing was sent (the listener's round trip would carry it).
        await listener.query('select 1');
        expect(heard).toEqual(['lean_test_marker']);
      });
      await arrived;
      expect(heard).toEqual(['lean_test_marker', OUTBOX_CHANNEL]);

      // A burst right after that one: the repeats asked for while one is in flight or within
      // NOTIFY_SPACING_MS after it are sent as one, at its end: fewer, never none.
      const outbox = () => heard.filter((c) => c === OUTBOX_CHANNEL).length;
      const before = outbox();
      await Promise.all([signalOutbox(own.store.db), signalOutbox(own.store.db), signalOutbox(own.store.db)]);
      if (outbox() === before) await next(OUTBOX_CHANNEL); // fails after 5 s
      expect(outbox()).toBeGreaterThan(before);
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

  it('authenticates from the key cache: GET one due and the summary are one statement each', async () => {
    const one = await statementsOf(() => biz.get(`/v1/transactions/${id}`));
    // PRODUCT part 13 shows a due's reminder steps beside it: read in the due's own statement.
    expect(one.map((q) => q.text)).toEqual([expect.stringMatching(/from reminders r .*from "transactions"/s)]);
    const summary = await statementsOf(() => biz.get('/v1/summary'));
    expect(summary.map((q) => q.text)).toEqual([expect.stringMatching(/from "business_totals"/)]);
  });

  it('reads a contact with its balances in one statement, and a kept read by its data version alone', async () => {
    // A read after a write to the business: the data version, then the contact in one statement.
    expect((await biz.patch(`/v1/contacts/${contactId}`, { name: 'Round Trip Buyer 2' })).status).toBe(200);
    const first = await statementsOf(() => biz.get(`/v1/contacts/${contactId}`));
    expect(first.map((q) => q.text)).toEqual([
      expect.stringMatching(/sum\(data_version\)/),
      expect.stringMatching(/from "contacts" as "c"/),
    ]);
    // Asked again while nothing changed: served rendered (http/rendered.ts), one round trip.
    const again = await statementsOf(() => biz.get(`/v1/contacts/${contactId}`));
    expect(again.map((q) => q.text)).toEqual([expect.stringMatching(/sum\(data_version\)/)]);
  });

  it('creates a due for a contact in two round trips: the contact, then one statement for every write', async () => {
    const create = await statementsOf(
      () => biz.post('/v1/transactions', { amount_paise: 1000, due_date: '2030-01-01', contact_id: contactId }),
      201,
    );
    // The outbox signal: sent by the pool once the statement has committed (db/postgres/queries.ts).
    expect(create.map((q) => q.text)).toContain(NOTIFY_AFTER_COMMIT);
    const texts = create.map((q) => q.text).filter((t) => t !== NOTIFY_AFTER_COMMIT);
    // One statement is atomic by itself: no BEGIN, no COMMIT (DueCreation.createAlone (transactions/create.ts)).
    expect(texts).toEqual([expect.stringMatching(/from "contacts"/), expect.stringMatching(/^with w0 as /)]);
    // The due, its reminders, its event, then the totals upsert (on the connection's shard) whose
    // output the pending and open days' upserts read: the totals row locked last.
    expect(texts[1]).toMatch(
      /^with w0 as \(insert into "transactions".*\), w1 as \(insert into "reminders".*\), w2 as \(insert into "events".*\), totals as \(\s*insert into business_totals .*insert into pending_by_day .*insert into open_by_day /s,
    );
    // A named prepared statement, as the reads (pg keeps, per connection, those it prepared).
    const prepared = [...clients].flatMap((client) =>
      Object.values(
        (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements,
      ),
    );
    expect(prepared).toContain(texts[1]);
    // The contact is kept: the next create for it is the one statement, which writes the due only
    // while the contact is unchanged (DueCreation.createAlone (transactions/create.ts)).
    const again = await statementsOf(
      () => biz.post('/v1/transactions', { amount_paise: 1000, due_date: '2030-01-01', contact_id: contactId }),
      201,
    );
    expect(again.map((q) => q.text).filter((t) => t !== NOTIFY_AFTER_COMMIT)).toEqual([texts[1]]);
  });

  it('creates a due that also writes a contact in one transaction, its writes in one statement before COMMIT', async () => {
    const create = await statementsOf(
      () =>
        biz.post('/v1/transactions', { amount_paise: 1000, due_date: '2030-01-01', contact_name: 'New Lean Buyer' }),
      201,
    );
    const texts = create.map((q) => q.text).filter((t) => t !== NOTIFY_AFTER_COMMIT);
    expect(texts[0]).toBe('begin');
    expect(texts.at(-1)).toBe('commit');
    expect(texts.at(-2)).toMatch(/^with w0 as \(insert into "transactions"/);
    expect(texts.filter((t) => /insert into business_totals/.test(t))).toHaveLength(2);
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
