import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Driver, Kysely, type SqliteDatabase, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommitSqliteDriver, type Statements } from './driver.js';
import { type FileSync, fileSync } from './durability.js';
import { heldSync } from './held-sync.js';

/** Lets queued microtasks and the next turns of the event loop run. */
async function settle(turns = 3) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

interface Db {
  t: { id: number; note: string | null };
  parent: { id: number };
  child: { id: number; parent_id: number };
}

describe('GroupCommitSqliteDriver', () => {
  let dir: string;
  let driver: GroupCommitSqliteDriver;
  let db: Kysely<Db>;
  /** A second connection, as another process would have: it only sees committed data. */
  let other: BetterSqlite3.Database;
  /** The driver's own connection. */
  let raw: BetterSqlite3.Database;

  const open = async (
    walSync: (file: string) => FileSync,
    opts: { groupWindowMs?: number; now?: () => number } = {},
  ) => {
    const file = path.join(dir, 'db.sqlite');
    raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
    driver = new GroupCommitSqliteDriver(raw, raw as unknown as Statements, walSync(`${file}-wal`), opts);
    const theDriver = driver;
    class TestDialect extends SqliteDialect {
      override createDriver(): Driver {
        return theDriver;
      }
    }
    db = new Kysely<Db>({ dialect: new TestDialect({ database: raw as unknown as SqliteDatabase }) });
  };

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'group-commit-'));
    await open(fileSync);
    await sql`create table t (id integer primary key, note text)`.execute(db);
    await sql`create table parent (id integer primary key)`.execute(db);
    await sql`create table child (id integer primary key, parent_id integer references parent (id) deferrable initially deferred)`.execute(
      db,
    );
    other = new BetterSqlite3(path.join(dir, 'db.sqlite'), { readonly: true });
  });

  afterEach(async () => {
    other.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const visibleElsewhere = (id: number) => other.prepare('select count(*) from t where id = ?').pluck().get(id) === 1;

  it('commits concurrent transactions together, and each returns only once its write is durable', async () => {
    const before = { ...driver.stats };
    const seenAtReturn: boolean[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto('t').values({ id: i, note: 'x' }).execute();
            await trx
              .updateTable('t')
              .set({ note: `n${i}` })
              .where('id', '=', i)
              .execute();
          })
          .then(() => seenAtReturn.push(visibleElsewhere(i))),
      ),
    );
    expect(seenAtReturn).toEqual(Array(20).fill(true));
    expect(other.prepare('select count(*) from t').pluck().get()).toBe(20);
    expect(driver.stats.transactions - before.transactions).toBe(20);
    const commits = driver.stats.commits - before.commits;
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThan(5);
  });

  it('rolls back only the transaction that failed', async () => {
    const results = await Promise.allSettled(
      [1, 2, 3].map((id) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ id, note: null }).execute();
          if (id === 2) throw new Error('boom');
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(other.prepare('select id from t order by id').pluck().all()).toEqual([1, 3]);
  });

  it('commits the open group before a query outside a transaction reads', async () => {
    const write = db.transaction().execute((trx) => trx.insertInto('t').values({ id: 7, note: 'a' }).execute());
    // queued behind the transaction; the group has not been committed when it runs
    const read = db.selectFrom('t').select('id').execute();
    const rows = await read;
    expect(rows).toEqual([{ id: 7 }]);
    expect(visibleElsewhere(7)).toBe(true);
    await write;
  });

  it('fails every transaction of a group whose COMMIT fails, and keeps none of their writes', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('t').values({ id: 1, note: null }).execute()),
      // a deferred foreign key is only checked at COMMIT
      db.transaction().execute((trx) => trx.insertInto('child').values({ id: 1, parent_id: 99 }).execute()),
      db.transaction().execute((trx) => trx.insertInto('t').values({ id: 2, note: null }).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(other.prepare('select count(*) from t').pluck().get()).toBe(0);
    // and the connection is usable again
    await db.transaction().execute((trx) => trx.insertInto('t').values({ id: 3, note: null }).execute());
    expect(visibleElsewhere(3)).toBe(true);
  });

  it('commits a pending group on destroy', async () => {
    let settled = false;
    const write = db
      .transaction()
      .execute((trx) => trx.insertInto('t').values({ id: 5, note: null }).execute())
      .finally(() => {
        settled = true;
      });
    // let the transaction run and join its group (microtasks only: the group's flush has not run)
    for (let i = 0; i < 50; i++) await Promise.resolve();
    expect(settled).toBe(false);
    expect(visibleElsewhere(5)).toBe(false);
    await Promise.all([write, db.destroy()]);
    expect(visibleElsewhere(5)).toBe(true);
    // reopen for afterEach
    await open(fileSync);
  });

  describe('durability (the WAL sync after each COMMIT)', () => {
    let wal: ReturnType<typeof heldSync>;
    beforeEach(async () => {
      await db.destroy();
      wal = heldSync();
      await open(() => wal);
    });
    afterEach(() => wal.letGo());
    const insert = (id: number) =>
      db.transaction().execute((trx) => trx.insertInto('t').values({ id, note: null }).execute());
    const track = <T>(promise: Promise<T>) => {
      const state = { settled: false, ok: false, error: undefined as unknown };
      promise.then(
        () => Object.assign(state, { settled: true, ok: true }),
        (error) => Object.assign(state, { settled: true, error }),
      );
      return state;
    };

    it("answers a transaction only once the sync that followed its group's COMMIT has completed", async () => {
      const write = track(insert(1));
      await settle();
      // committed (another connection sees it), not yet on disk, so not yet answered
      expect(visibleElsewhere(1)).toBe(true);
      expect(wal.running).toBe(1);
      expect(write.settled).toBe(false);
      wal.complete();
      await settle();
      expect(write).toMatchObject({ settled: true, ok: true });
    });

    it('runs one sync at a time; transactions that end meanwhile are committed together after it', async () => {
      const commits = driver.stats.commits;
      const first = track(insert(1));
      await settle();
      expect(wal.started).toBe(1);
      // transactions that end while that sync runs wait in one open group: not committed yet
      const later = [2, 3, 4].map((id) => track(insert(id)));
      await settle();
      expect([2, 3, 4].some(visibleElsewhere)).toBe(false);
      expect(wal.started).toBe(1);
      wal.complete();
      await settle();
      expect(first.ok).toBe(true);
      // then one COMMIT and one sync for all three
      expect([2, 3, 4].every(visibleElsewhere)).toBe(true);
      expect(later.some((w) => w.settled)).toBe(false);
      expect(wal.started).toBe(2);
      wal.complete();
      await settle();
      expect(later.every((w) => w.ok)).toBe(true);
      expect(driver.stats.commits - commits).toBe(2);
      expect(driver.durability.syncs).toBe(2);
    });

    it('keeps a group open while transactions keep joining it, turn after turn, and commits it once a turn adds none', async () => {
      await db.destroy();
      // a window far longer than the test: only the group's growth decides
      await open(() => wal, { groupWindowMs: 60_000 });
      const writes = [track(insert(1))];
      for (let id = 2; id <= 5; id++) {
        await new Promise((resolve) => setImmediate(resolve));
        writes.push(track(insert(id)));
      }
      await settle();
      // one COMMIT carried all five (a turn passed without a new one), and one sync follows it
      expect(driver.stats.commits).toBe(1);
      expect(driver.stats.transactions).toBe(5);
      expect([1, 2, 3, 4, 5].every(visibleElsewhere)).toBe(true);
      expect(wal.started).toBe(1);
      expect(writes.some((w) => w.settled)).toBe(false);
      wal.complete();
      await settle();
      expect(writes.every((w) => w.ok)).toBe(true);
    });

    it('commits a group that keeps growing once its window has passed', async () => {
      await db.destroy();
      // the window read on a clock of the test's own: one millisecond passes per turn
      let now = 0;
      await open(() => wal, { groupWindowMs: 20, now: () => now });
      const writes = [track(insert(1))];
      // a new transaction every turn: the group must not wait for the stream to end
      for (let turn = 0; turn < 200 && !visibleElsewhere(1); turn++) {
        await new Promise((resolve) => setImmediate(resolve));
        now += 1;
        writes.push(track(insert(writes.length + 1)));
      }
      expect(visibleElsewhere(1)).toBe(true);
      // committed once the window had passed (20 ms: about 20 turns), not after the 200 allowed
      expect(now).toBeGreaterThanOrEqual(20);
      expect(now).toBeLessThan(30);
      expect(writes.length).toBeGreaterThan(2);
      expect(driver.stats.commits).toBe(1);
      // the rest form the next group, committed after this sync
      for (let i = 0; i < 2; i++) {
        wal.complete();
        await settle(5);
      }
      expect(writes.every((w) => w.ok)).toBe(true);
      expect(driver.stats.commits).toBe(2);
    });

    it('holds back a read that could see a commit not yet durable, without holding the connection', async () => {
      const write = track(insert(1));
      await settle();
      const read = track(db.selectFrom('t').select('id').execute());
      await settle();
      expect(read.settled).toBe(false);
      // the connection is free meanwhile: another transaction gets it and does its work
      let ran = false;
      const next = track(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ id: 2, note: null }).execute();
          ran = true;
        }),
      );
      await settle();
      expect(ran).toBe(true);
      wal.complete();
      await settle();
      expect(write.ok && read.ok).toBe(true);
      expect(next.settled).toBe(false);
      wal.complete();
      await settle();
      expect(next.ok).toBe(true);
    });

    it('answers a read at once when everything it could see is durable', async () => {
      const write = track(insert(1));
      await settle();
      wal.complete();
      await settle();
      expect(write.ok).toBe(true);
      const started = wal.started;
      expect(await db.selectFrom('t').select('id').execute()).toEqual([{ id: 1 }]);
      expect(wal.started).toBe(started);
    });

    it('makes a write outside a transaction durable before it returns', async () => {
      const write = track(db.insertInto('t').values({ id: 9, note: null }).execute());
      await settle();
      expect(visibleElsewhere(9)).toBe(true);
      expect(write.settled).toBe(false);
      wal.complete();
      await settle();
      expect(write.ok).toBe(true);
    });

    it("holds back a failed transaction's error while what it read is not durable", async () => {
      track(insert(1));
      await settle();
      const failed = track(
        db.transaction().execute(async (trx) => {
          const rows = await trx.selectFrom('t').select('id').execute();
          if (rows.length > 0) throw new Error('already there');
        }),
      );
      await settle();
      expect(failed.settled).toBe(false);
      wal.complete();
      await settle();
      expect(failed.settled).toBe(true);
      expect(String(failed.error)).toMatch(/already there/);
    });

    it('answers unavailable on a failed sync, rolls back the group built meanwhile, serves reads, and takes writes again once re-verified', async () => {
      const first = track(insert(1));
      await settle();
      // a second transaction ends while the sync runs: it waits in the next group
      const second = track(insert(2));
      await settle();
      wal.complete(new Error('EIO: i/o error, fdatasync'));
      await settle();
      expect(first.error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/EIO/) });
      // the group built during the failed sync is rolled back, never committed
      expect(second.error).toMatchObject({ code: 'unavailable' });
      expect(visibleElsewhere(2)).toBe(false);

      // a write first re-verifies the store: while the sync still fails, it is refused
      const refused = track(insert(3));
      await settle();
      expect(wal.running).toBe(1);
      wal.complete(new Error('EIO: i/o error, fdatasync'));
      await settle();
      expect(refused.error).toMatchObject({ code: 'unavailable' });
      expect(visibleElsewhere(3)).toBe(false);
      expect(driver.stats.failedRecoveries).toBe(1);
      // reads go on meanwhile
      expect(await db.selectFrom('t').select('id').execute()).toEqual([{ id: 1 }]);

      // once a sync succeeds again, the store is re-verified and writes go on
      wal.letGo();
      await insert(4);
      expect(driver.stats.recoveries).toBe(1);
      expect(visibleElsewhere(4)).toBe(true);
      expect(driver.durability.failure).toBeNull();
    });
  });

  describe('reads outside a transaction', () => {
    /** Another process's connection that writes. */
    const writeElsewhere = (id: number) => {
      const writer = new BetterSqlite3(path.join(dir, 'db.sqlite'));
      try {
        writer.prepare('insert into t (id, note) values (?, null)').run(id);
      } finally {
        writer.close();
      }
    };
    const ids = async () => (await db.selectFrom('t').select('id').orderBy('id').execute()).map((r) => r.id);

    it("each see every commit made before them, ours and other connections'", async () => {
      await db.insertInto('t').values({ id: 1, note: null }).execute();
      expect(await ids()).toEqual([1]);
      writeElsewhere(2);
      expect(await ids()).toEqual([1, 2]);
    });

    it("read data_version on its own: it moves for another connection's commit at once, never for ours", async () => {
      const before = driver.dataVersion();
      await db.insertInto('t').values({ id: 5, note: null }).execute();
      expect(driver.dataVersion()).toBe(before);
      expect(raw.inTransaction).toBe(false);
      writeElsewhere(6);
      expect(driver.dataVersion()).not.toBe(before);
      expect(raw.inTransaction).toBe(false);
    });
  });
});
