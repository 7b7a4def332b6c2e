import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Statement, Statements } from '../src/db/sqlite/driver.js';
import { type FileSync, fileSync } from '../src/db/sqlite/durability.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';

/** An error as the OS or better-sqlite3 reports it. */
function fault(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * The storage seams of the SQLite store (db/sqlite/open.ts), each with a switch: the WAL's sync
 * (the real fdatasync until told to fail) and the statements (a write, or the COMMIT, failing as
 * SQLite fails on a full disk or a read-only file).
 */
function faultySeams() {
  let syncError: Error | null = null;
  let statementError: { error: Error; matches: (sql: string) => boolean } | null = null;
  const walSync = (file: string): FileSync => {
    const real = fileSync(file);
    return {
      sync: (done) => (syncError ? setImmediate(done, syncError) : real.sync(done)),
      close: () => real.close(),
    };
  };
  const statements = (real: Statements): Statements => ({
    close: () => real.close(),
    prepare(sql: string): Statement {
      const stmt = real.prepare(sql);
      if (statementError === null || !statementError.matches(sql)) return stmt;
      const { error } = statementError;
      return Object.assign(Object.create(stmt) as Statement, {
        run: () => {
          throw error;
        },
        all: () => {
          throw error;
        },
      });
    },
  });
  return {
    seams: { walSync, statements },
    failSyncs: (error: Error | null) => {
      syncError = error;
    },
    failStatements: (error: Error | null, matches: (sql: string) => boolean = () => true) => {
      statementError = error && { error, matches };
    },
  };
}

const isWrite = (sql: string) => /^\s*(insert|update|delete)\b/i.test(sql);
const isCommit = (sql: string) => /^\s*commit\b/i.test(sql);

describe.skipIf(STORE !== 'sqlite')('SQLite storage faults', () => {
  let h: Harness;
  let biz: TestBusiness;
  let faults: ReturnType<typeof faultySeams>;

  beforeEach(async () => {
    faults = faultySeams();
    h = await startHarness({ sqlite: faults.seams });
    biz = await h.newBusiness();
  });
  afterEach(async () => {
    faults.failSyncs(null);
    faults.failStatements(null);
    await h.close();
  });

  const create = (name: string, headers?: Record<string, string>) =>
    biz.post(
      '/v1/transactions',
      { contact_name: name, amount_paise: 10_000, due_date: '2030-01-01' },
      headers && { headers },
    );
  const listedNames = async () => {
    const list = await biz.get('/v1/transactions?limit=100');
    expect(list.status).toBe(200);
    return (list.body.data as { contact_name: string }[]).map((t) => t.contact_name).sort();
  };
  const expectUnavailable = (res: { status: number; headers: Record<string, unknown>; body: any }) => {
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  };

  it('a failed fsync (ENOSPC): writes answer 503 with Retry-After, reads go on, and writes resume without a restart once the disk syncs again', async () => {
    const first = await create('Before');
    expect(first.status).toBe(201);

    faults.failSyncs(fault('ENOSPC', 'ENOSPC: no space left on device, fdatasync'));
    expectUnavailable(await create('During', { 'idempotency-key': 'during-1' }));
    // Still failing: the re-verification before the next write fails too.
    expectUnavailable(await create('Refused'));
    expectUnavailable(await biz.post(`/v1/transactions/${first.body.data.id}/mark-paid`, {}));
    // Reads keep working, from what is committed.
    expect((await biz.get(`/v1/transactions/${first.body.data.id}`)).status).toBe(200);
    expect((await biz.get('/v1/summary')).status).toBe(200);

    faults.failSyncs(null);
    const after = await create('After');
    expect(after.status).toBe(201);
    expect((await biz.get(`/v1/transactions/${after.body.data.id}`)).status).toBe(200);
    // The write whose sync failed was never acknowledged; retried with its key it is created once.
    const retried = await create('During', { 'idempotency-key': 'during-1' });
    expect(retried.status).toBe(201);
    expect(await listedNames()).toEqual(['After', 'Before', 'During']);
  });

  it('a full disk at COMMIT (SQLITE_FULL): 503, nothing of the write is kept, writes resume once space is back', async () => {
    expect((await create('Before')).status).toBe(201);
    const summaryBefore = (await biz.get('/v1/summary')).body;

    faults.failStatements(fault('SQLITE_FULL', 'database or disk is full'), isCommit);
    expectUnavailable(await create('During'));
    expectUnavailable(await create('Again'));
    expect(await listedNames()).toEqual(['Before']);
    expect((await biz.get('/v1/summary')).body).toEqual(summaryBefore);

    faults.failStatements(null);
    expect((await create('After')).status).toBe(201);
    expect(await listedNames()).toEqual(['After', 'Before']);
  });

  it('a read-only store (SQLITE_READONLY): writes answer 503, reads go on, writes resume once it is writable', async () => {
    const first = await create('Before');
    faults.failStatements(fault('SQLITE_READONLY', 'attempt to write a readonly database'), isWrite);
    expectUnavailable(await create('During'));
    const contactId = first.body.data.contact_id;
    expectUnavailable(await biz.patch(`/v1/contacts/${contactId}`, { name: 'Renamed' }));
    expect((await biz.get(`/v1/contacts/${contactId}`)).body.data.name).toBe('Before');
    expect(await listedNames()).toEqual(['Before']);

    faults.failStatements(null);
    expect((await create('After')).status).toBe(201);
    expect(await listedNames()).toEqual(['After', 'Before']);
  });
});
