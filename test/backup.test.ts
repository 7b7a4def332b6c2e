import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { restoreSqlite, StoreInUseError } from '../src/db/sqlite/restore.js';
import { migrate, openStore } from '../src/db/store.js';
import { createMetrics } from '../src/http/metrics.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { createJobs } from '../src/workers/index.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';
import { seedLedger } from './helpers/ledger.js';
import { postgresBin } from './helpers/throwaway-servers.js';

const run = promisify(execFile);
const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
let scratch: string;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
  scratch = mkdtempSync(path.join(tmpdir(), 'receivables-backup-'));
  await seedLedger(h, await h.newBusiness());
});
afterAll(async () => {
  await h.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Waits (turn by turn of the event loop, at most 20 s) until `done` holds. */
async function until(done: () => boolean) {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the writers stopped acknowledging writes');
    await new Promise((r) => setImmediate(r));
  }
}

/** The ids and amounts of every due, in id order: what two stores must both hold. */
async function duesIn(db: Harness['store']['db']) {
  const rows = await db.selectFrom('transactions').select(['id', 'amount_paise', 'status']).orderBy('id').execute();
  return rows.map((r) => ({ ...r, amount_paise: Number(r.amount_paise) }));
}

describe.skipIf(STORE !== 'sqlite')('SQLite backup and restore', () => {
  it('a backup taken while a writer runs holds every write acknowledged before it began, and verifies', async () => {
    const biz = await h.newBusiness();
    const acked: string[] = [];
    let stop = false;
    let failures = 0;
    // Four writers creating dues until told to stop; each 201 is an acknowledged write.
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop && i < 10_000; i++) {
        const res = await biz.post('/v1/transactions', {
          amount_paise: 100 + i,
          due_date: '2026-12-01',
          contact_name: `Writer ${w}`,
        });
        if (res.status === 201) acked.push(res.body.data.id);
        else failures++;
      }
    });
    let before: string[];
    let taken: Awaited<ReturnType<NonNullable<typeof h.store.backup>>> | undefined;
    const out = path.join(scratch, 'during-writes.db');
    try {
      await until(() => acked.length >= 40);
      before = [...acked];
      taken = await h.store.backup?.(out);
      // The writers went on after the backup: they ran throughout.
      const whenDone = acked.length;
      await until(() => acked.length >= whenDone + 20);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(failures).toBe(0);
    expect(taken).toEqual({ file: out, bytes: expect.any(Number) });

    const restoredDir = path.join(scratch, 'restored');
    const restored = restoreSqlite(restoredDir, out, new Date());
    expect(restored).toMatchObject({ replaced: null, schema: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const store = openStore({ dataDir: restoredDir, databaseUrl: undefined, pgPoolMax: 1 });
    try {
      await migrate(store.db);
      const ids = new Set((await duesIn(store.db)).map((d) => d.id));
      expect(before.filter((id) => !ids.has(id))).toEqual([]);
      const report = await verifyStore(store.db);
      expect(report.differences).toEqual([]);
      expect(report).toMatchObject({ ok: true, integrity: { status: 'ok' } });
    } finally {
      await store.close();
    }
  });

  it('refuses to restore over a store in use, and leaves it as it was', async () => {
    const out = path.join(scratch, 'in-use.db');
    await h.store.backup?.(out);
    const dues = await duesIn(h.store.db);
    expect(() => restoreSqlite(h.dataDir, out, new Date())).toThrow(StoreInUseError);
    expect(() => restoreSqlite(h.dataDir, out, new Date())).toThrow(/in use .*stop them/);
    expect(await duesIn(h.store.db)).toEqual(dues);
  });

  it('puts the backup in place of a stopped store and keeps the store it replaced', async () => {
    const dir = path.join(scratch, 'stopped');
    const first = openStore({ dataDir: dir, databaseUrl: undefined, pgPoolMax: 1 });
    await migrate(first.db);
    await first.close();
    const out = path.join(scratch, 'full.db');
    await h.store.backup?.(out);
    const result = restoreSqlite(dir, out, new Date('2026-11-21T10:00:00.000Z'));
    expect(result.replaced).toBe(path.join(dir, 'receivables.db.replaced-2026-11-21T10-00-00-000Z'));
    expect(existsSync(result.replaced as string)).toBe(true);
    const store = openStore({ dataDir: dir, databaseUrl: undefined, pgPoolMax: 1 });
    try {
      expect(await duesIn(store.db)).toEqual(await duesIn(h.store.db));
    } finally {
      await store.close();
    }
  });

  it('the server takes scheduled backups with BACKUP_DIR (the store itself, restorable)', async () => {
    const dir = path.join(scratch, 'scheduled');
    const config = loadConfig({ DATA_DIR: h.dataDir, BACKUP_DIR: dir, BACKUP_EVERY_HOURS: '12', BACKUP_KEEP: '2' });
    const metrics = createMetrics();
    const jobs = createJobs({ config, store: h.store, clock: h.clock, services: h.services, metrics });
    const job = jobs.find((j) => j.name === 'scheduled-backup');
    expect(job).toBeDefined();
    expect(await job?.runOnce(new AbortController().signal)).toBe(1);
    const [file] = readdirSync(dir);
    expect(file).toMatch(/^receivables-\d{8}T\d{6}Z\.db$/);
    expect(await metrics.registry.getSingleMetricAsString('backup_last_success_timestamp_seconds')).toMatch(
      new RegExp(`backup_last_success_timestamp_seconds ${h.clock.now().getTime() / 1000}`),
    );
    const restoredDir = path.join(scratch, 'from-scheduled');
    restoreSqlite(restoredDir, path.join(dir, file as string), new Date());
    const store = openStore({ dataDir: restoredDir, databaseUrl: undefined, pgPoolMax: 1 });
    try {
      expect((await verifyStore(store.db)).ok).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('leaves only whole files: no partial file stays in the folder', async () => {
    await h.store.backup?.(path.join(scratch, 'whole.db'));
    expect(existsSync(path.join(scratch, 'whole.db'))).toBe(true);
    expect(readdirSync(scratch).filter((f) => f.includes('.partial-'))).toEqual([]);
  });

  it('refuses a file that is not a backup of this store, changing nothing', async () => {
    const dir = path.join(scratch, 'untouched');
    const notSqlite = path.join(scratch, 'notes.txt');
    await import('node:fs/promises').then((fs) => fs.writeFile(notSqlite, 'not a database at all, just text'));
    expect(() => restoreSqlite(dir, notSqlite, new Date())).toThrow(/is not a SQLite store/);
    expect(() => restoreSqlite(dir, path.join(scratch, 'missing.db'), new Date())).toThrow(/does not exist/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe.skipIf(STORE !== 'postgres')('PostgreSQL: pg_dump and pg_restore', () => {
  it('has no backup of its own (pg_dump makes them)', () => {
    expect(h.store.backup).toBeUndefined();
  });

  it('round-trips the store: the restored database holds the same dues and verifies', async () => {
    const bin = postgresBin();
    const dump = path.join(scratch, 'receivables.dump');
    const source = h.databaseUrl as string;
    // As the operations guide shows: a custom-format dump, restored into a new, empty database.
    await run(path.join(bin, 'pg_dump'), ['--format=custom', '--file', dump, '--dbname', source]);
    const target = new URL(source);
    const name = `${target.pathname.slice(1)}_restored`;
    target.pathname = `/${name}`;
    const admin = new pg.Client({ connectionString: source });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    try {
      await run(path.join(bin, 'pg_restore'), ['--no-owner', '--exit-on-error', '--dbname', target.toString(), dump]);
      const store = openStore({ dataDir: scratch, databaseUrl: target.toString(), pgPoolMax: 2 });
      try {
        expect(await migrate(store.db)).toEqual([]);
        expect(await duesIn(store.db)).toEqual(await duesIn(h.store.db));
        const report = await verifyStore(store.db);
        expect(report.differences).toEqual([]);
        expect(report.ok).toBe(true);
        expect(report.businesses).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    } finally {
      const cleanup = new pg.Client({ connectionString: source });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    }
  });
});
