import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/db/store.js';
import { toAppError } from '../src/http/error-handler.js';
import { type Harness, openTestStore, STORE, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * PRODUCT part 17: no single request delays another business's requests. On SQLite the lists run
 * on read threads: a read held inside its thread (Atomics.wait in the worker, as a long statement
 * would hold it) leaves the event loop and the other thread free. No clock is involved: the test
 * counts what completes while the read is held.
 */

/** Resolves when `ready` does, or fails clearly after `ms`. */
function within<T>(ready: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const fail = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([ready, fail]).finally(() => clearTimeout(timer));
}

describe.skipIf(STORE !== 'sqlite')('a long read of one business (SQLite read threads)', () => {
  const buffer = new SharedArrayBuffer(4);
  const flag = new Int32Array(buffer);
  let heldBusiness: string | undefined;
  let onStarted: (() => void) | undefined;
  let h: Harness;
  let a: TestBusiness;
  let b: TestBusiness;
  let bDue: string;

  beforeAll(async () => {
    h = await startHarness({
      reads: {
        readThreads: 2,
        readHold: {
          buffer,
          when: (_sql, parameters) => heldBusiness !== undefined && parameters.includes(heldBusiness),
          onStarted: () => onStarted?.(),
        },
      },
    });
    a = await h.newBusiness();
    b = await h.newBusiness();
    for (let i = 0; i < 3; i++) {
      await a.post('/v1/transactions', { amount_paise: 100, due_date: '2026-12-01', contact_name: 'Busy Buyer' });
    }
    bDue = (await b.post('/v1/transactions', { amount_paise: 5, due_date: '2026-12-01', contact_name: 'Calm Buyer' }))
      .body.data.id;
  });
  afterAll(async () => {
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    await h.close();
  });

  it("answers another business's requests in full while it is held, and then answers it", async () => {
    const started = new Promise<void>((resolve) => {
      onStarted = resolve;
    });
    heldBusiness = a.business.id;
    let aDone = 0;
    const aPages = [
      a.get('/v1/transactions?offset=1&limit=2'),
      // A's next reads wait for its first (one thread per business): they never take B's thread.
      a.get('/v1/transactions?status=outstanding&offset=1'),
      a.get('/v1/contacts?search=busy'),
    ].map((p) =>
      p.then((res) => {
        aDone++;
        return res;
      }),
    );
    await within(started, 10_000, "business A's read starting in its thread");

    const bCalls = [
      () => b.get(`/v1/transactions/${bDue}`),
      () => b.get('/v1/summary'),
      () => b.get('/v1/transactions?limit=10'),
      () => b.get('/v1/transactions?offset=0&status=pending'),
      () => b.get('/v1/contacts'),
      () => b.get('/legacy/v1/transactions'),
    ];
    let bDone = 0;
    for (let round = 0; round < 3; round++) {
      for (const call of bCalls) {
        const res = await within(call(), 5000, `B call ${bCalls.indexOf(call)}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        bDone++;
      }
    }
    expect(bDone).toBe(bCalls.length * 3);
    expect(aDone).toBe(0);

    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    const answered = await within(Promise.all(aPages), 10_000, "business A's reads ending once released");
    expect(answered.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(answered[0]?.body).toMatchObject({ total: 3, offset: 1 });
    expect(answered[0]?.body.data).toHaveLength(2);
  });
});

describe.skipIf(STORE !== 'postgres')('PG_STATEMENT_TIMEOUT_MS', () => {
  it('cancels a statement that runs longer, answered 503; the connection serves the next one', async () => {
    const { store, databaseUrl, dataDir } = await openTestStore();
    await store.close();
    const timed = openStore({ dataDir, databaseUrl, pgPoolMax: 1, pgStatementTimeoutMs: 200 });
    try {
      const failure = await sql`select pg_sleep(30)`.execute(timed.db).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: '57014' });
      const answer = toAppError(failure);
      expect(answer.code).toBe('unavailable');
      expect(answer.headers?.['retry-after']).toBeDefined();
      const row = await timed.db.selectNoFrom(sql<number>`1`.as('one')).executeTakeFirstOrThrow();
      expect(Number(row.one)).toBe(1);
    } finally {
      await timed.close();
    }
  });
});
