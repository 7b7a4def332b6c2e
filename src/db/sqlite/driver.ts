import type BetterSqlite3 from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  type SqliteDatabase,
} from 'kysely';
import { Durability, type FileSync, storeUnavailable } from './durability.js';
import { isStorageFault } from './faults.js';

/** A prepared statement; `readonly` is better-sqlite3's (sqlite3_stmt_readonly: writes nothing). */
export type Statement = ReturnType<SqliteDatabase['prepare']> & { readonly readonly: boolean };
export interface Statements {
  prepare(sql: string): Statement;
  close(): void;
}

/** One SQL statement on the single better-sqlite3 connection (as Kysely's own SQLite driver runs it). */
function run<R>(db: Statements, sql: string, parameters: readonly unknown[]): QueryResult<R> {
  return runPrepared(db.prepare(sql), parameters);
}

function runPrepared<R>(stmt: Statement, parameters: readonly unknown[]): QueryResult<R> {
  if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return {
    numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes),
    insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
    rows: [],
  };
}

/** A FIFO lock: whoever asked first runs first (Kysely's own mutex wakes every waiter at once). */
class FifoLock {
  #held = false;
  readonly #queue: (() => void)[] = [];

  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#queue.push(resolve));
  }

  release(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.#held = false;
  }
}

const MEMBER = 'group_member';
/**
 * How long a group may stay open while it keeps growing (see #scheduleFlush): the most a write
 * waits for others to share its commit, like PostgreSQL's commit_delay.
 */
export const GROUP_WINDOW_MS = 2;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One use of the connection: a plain query, or one Kysely transaction. `state` follows a
 * transaction through the group: `open` while it runs, `waiting` once its work is released into
 * the group and it waits for the group's COMMIT (the lock is already handed on by then).
 */
export class Lease implements DatabaseConnection {
  state: 'idle' | 'open' | 'waiting' | 'done' = 'idle';
  /** Set once this use passed the lock on early: to wait for durability without holding it. */
  handedOn = false;
  constructor(readonly driver: GroupCommitSqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const stmt = this.driver.db.prepare(query.sql);
    if (this.state !== 'idle') return this.driver.guard(() => runPrepared<R>(stmt, query.parameters), stmt.readonly);
    // A query outside a transaction must not read a group's work before it is durable.
    this.driver.commitGroup();
    // A write outside a transaction is refused while the store is failing (unless it recovers).
    if (!stmt.readonly) await this.driver.writable();
    let result: QueryResult<R>;
    try {
      result = this.driver.guard(() => runPrepared<R>(stmt, query.parameters), stmt.readonly);
    } finally {
      await this.driver.afterPlainStatement(this, stmt.readonly);
    }
    return result;
  }

  /**
   * One INSERT (named values, `@column`) run once per row, inside this use's open transaction:
   * a bulk import's rows (db/insert-each.ts). Inside the driver's savepoint a single-row
   * INSERT reused per row was ~1.7x faster than the same rows as multi-row INSERTs
   * (bench/bulk-floor.ts --savepoint), and no values array is built.
   */
  runEach(sql: string, rows: readonly object[]): void {
    if (this.state === 'idle') throw new Error('runEach runs inside a transaction');
    const stmt = this.driver.db.prepare(sql) as unknown as { run(values: object): unknown };
    this.driver.guard(() => {
      for (const row of rows) stmt.run(row);
    }, false);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite only streams select queries');
    if (this.state === 'idle') {
      this.driver.commitGroup();
      // Rows are handed out as they are read: only once what they may show is durable.
      await this.driver.durability.whenDurable();
    }
    const stmt = this.driver.db.prepare(query.sql);
    for (const row of stmt.iterate(query.parameters)) yield { rows: [row as R] };
  }
}

/**
 * Kysely's SQLite driver, plus group commit. A durable COMMIT waits for an fsync (0.3-1.5 ms
 * here), and that, not the statements, was most of the cost of creating a due. Here a
 * transaction runs as a SAVEPOINT inside one outer `BEGIN IMMEDIATE`; when it finishes it is
 * RELEASEd into that outer transaction and waits, the connection goes to the next transaction
 * already queued, and one COMMIT then makes the whole group visible. The fsync that makes it
 * durable runs off the event loop (db/sqlite/durability.ts: the connection is in `synchronous=NORMAL`
 * and the driver syncs the WAL itself), so the next group is being built while the disk works;
 * that group is committed once the sync has finished and it has stopped growing
 * (#scheduleFlush), so it holds every transaction that ended meanwhile. Only once a group is
 * durable do its transactions return, so no caller is told "done" before its write is on disk.
 *
 * - A transaction that fails rolls back to its savepoint: the others in the group keep their work.
 * - If the COMMIT fails, every transaction of the group fails (none was acknowledged).
 * - Nothing read is handed out before what it could show is durable: a query outside a
 *   transaction first commits the open group, and its rows, like a failed transaction's error,
 *   wait for the commits made before it to reach the disk (without holding the connection).
 * - Transactions are taken in arrival order; a group holds those that were queued while it ran.
 */
export class GroupCommitSqliteDriver implements Driver {
  readonly #lock = new FifoLock();
  readonly #database: BetterSqlite3.Database;
  readonly db: Statements;
  /** `pragma data_version`, plucked (its own statement, outside the shared cache: no row object per read). */
  readonly #dataVersion: BetterSqlite3.Statement;
  /** Transactions released into the open outer transaction, waiting for its COMMIT. */
  #group: Waiter[] | null = null;
  #flushScheduled = false;
  readonly #groupWindowMs: number;
  /** Milliseconds, for the group window (performance.now; tests pass their own). */
  readonly #now: () => number;
  /** Counts for tests and metrics: transactions committed, and the COMMITs that carried them. */
  readonly stats = { transactions: 0, commits: 0, recoveries: 0, failedRecoveries: 0 };
  readonly durability: Durability;
  readonly #walSync: FileSync;

  /**
   * `walSync` makes the connection's WAL durable: db/sqlite/durability.ts's fileSync of `<db>-wal` in
   * production (the connection must then run with synchronous=NORMAL), a controllable fake in
   * tests. `groupWindowMs` bounds how long a growing group stays open (GROUP_WINDOW_MS), as `now` reads time.
   */
  constructor(
    database: BetterSqlite3.Database,
    statements: Statements,
    walSync: FileSync,
    opts: { groupWindowMs?: number; now?: () => number; onFault?: (failure: Error | null) => void } = {},
  ) {
    this.#groupWindowMs = opts.groupWindowMs ?? GROUP_WINDOW_MS;
    this.#now = opts.now ?? (() => performance.now());
    this.#database = database;
    this.db = statements;
    this.#dataVersion = database.prepare('pragma data_version').pluck();
    this.#walSync = walSync;
    this.durability = new Durability(walSync, opts.onFault);
  }

  /**
   * SQLite's data_version: it moves when another connection (another process: the admin CLI, a
   * worker) commits, never for this connection's own commits. One statement, run on its own: it
   * leaves no transaction open behind it.
   */
  dataVersion(): number {
    // A storage fault here (it is read on every authenticated request) is a 503, as any read's is.
    return this.guard(() => this.#dataVersion.get() as number, true);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.acquire();
    return new Lease(this);
  }

  /**
   * Runs one statement; a storage fault (sqlite/faults.ts) becomes a 503 `unavailable`, and, met
   * by a write, stops all writes until the store is re-verified (#recover).
   */
  guard<T>(statement: () => T, readonly: boolean): T {
    try {
      return statement();
    } catch (error) {
      if (!isStorageFault(error)) throw error;
      throw readonly ? storeUnavailable(error) : this.durability.fail(error);
    }
  }

  /**
   * Resolves when writes may go on: at once while the store is healthy; while it is failing, once
   * it has been re-verified (#recover), else rejects with `unavailable`. Called with the lock held
   * and no group open.
   */
  async writable(): Promise<void> {
    if (this.durability.failure) await this.#recover();
  }

  /**
   * Re-verifies the store after a fault before any write is taken again (sqlite/faults.ts says
   * why this is safe): the WAL reopened, every committed page checkpointed into the database file
   * (synced by SQLite) and the WAL emptied, then a sync of the new WAL through our own seam.
   */
  async #recover(): Promise<void> {
    await new Promise<void>((resolve) => this.durability.onceIdle(resolve));
    try {
      this.#walSync.close();
      const [result] = this.#database.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result?.busy) throw new Error('another connection kept the WAL checkpoint from completing');
      await new Promise<void>((resolve, reject) => this.#walSync.sync((error) => (error ? reject(error) : resolve())));
    } catch (error) {
      this.stats.failedRecoveries++;
      throw storeUnavailable(error);
    }
    this.durability.recovered();
    this.stats.recoveries++;
  }

  /**
   * After a statement outside a Kysely transaction: a write committed on its own (or, for the
   * migrations' own BEGIN ... COMMIT, a COMMIT) is counted, and the caller gets its result once
   * every commit it could have seen is durable. It waits without the lock, unless a transaction
   * opened by plain statements is still going on.
   */
  afterPlainStatement(lease: Lease, readonly: boolean): Promise<void> | undefined {
    if (!this.#database.inTransaction && (!readonly || this.#openedByStatements)) this.durability.committed();
    this.#openedByStatements = this.#database.inTransaction;
    const wait = this.durability.whenDurable();
    if (wait === null) return undefined;
    if (!this.#openedByStatements) this.#handOn(lease);
    return wait;
  }

  /** A transaction begun with plain statements (the migrations' BEGIN IMMEDIATE) is open. */
  #openedByStatements = false;

  #handOn(lease: Lease): void {
    lease.handedOn = true;
    this.#lock.release();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (this.#group === null) {
      await this.writable();
      // IMMEDIATE: take the write lock now (waiting on busy_timeout if the admin CLI holds it),
      // rather than failing with SQLITE_BUSY on the first write of a deferred transaction.
      this.guard(() => run(this.db, 'begin immediate', []), false);
      this.#group = [];
    } else if (this.durability.failure) {
      // The open group will be rolled back (commitGroup): joining it would be in vain.
      throw this.durability.failure;
    }
    try {
      run(this.db, `savepoint ${MEMBER}`, []);
    } catch (error) {
      this.#scheduleFlush();
      throw error;
    }
    lease.state = 'open';
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    run(this.db, `release ${MEMBER}`, []);
    const group = this.#group as Waiter[];
    const durable = new Promise<void>((resolve, reject) => group.push({ resolve, reject }));
    lease.state = 'waiting';
    this.#scheduleFlush();
    // Hand the connection on now: the next queued transaction joins this group.
    this.#handOn(lease);
    try {
      await durable;
    } finally {
      lease.state = 'done';
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // A failed group COMMIT has already rolled everything back (and the lock was handed on).
    if (lease.state !== 'open') return;
    lease.state = 'done';
    if (this.#database.inTransaction) {
      run(this.db, `rollback to ${MEMBER}`, []);
      run(this.db, `release ${MEMBER}`, []);
      this.#scheduleFlush();
    } else {
      // SQLite rolled the whole outer transaction back (disk full, I/O error): the group is lost.
      this.commitGroup();
    }
    // Its error may rest on what it read (409: already paid): not told before that is durable.
    const wait = this.durability.whenDurable();
    if (wait === null) return;
    this.#handOn(lease);
    await wait;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // A committed transaction handed the lock on before waiting for its group.
    if (lease.handedOn) return;
    this.#lock.release();
  }

  async destroy(): Promise<void> {
    await this.#lock.acquire();
    try {
      this.commitGroup();
      await this.durability.whenDurable();
    } finally {
      this.#database.close();
      this.#walSync.close();
    }
  }

  /**
   * COMMITs the open group, if any, and settles its transactions. Called with the lock held: by
   * the flush below, by a plain query, and on destroy.
   */
  commitGroup(): void {
    const group = this.#group;
    if (group === null) return;
    this.#group = null;
    try {
      if (!this.#database.inTransaction) {
        if (group.length === 0) return;
        // SQLite itself rolls a transaction back on some storage faults (disk full, I/O error).
        throw this.durability.fail(new Error('SQLite rolled back the group transaction before its commit'));
      }
      // Failing since the group began (a sync failed): its work is rolled back, never acknowledged.
      if (this.durability.failure) throw this.durability.failure;
      this.guard(() => run(this.db, 'commit', []), false);
      this.stats.commits++;
      this.stats.transactions += group.length;
    } catch (error) {
      if (this.#database.inTransaction) this.#database.exec('rollback');
      for (const member of group) member.reject(error);
      return;
    }
    // A group whose members all rolled back changed nothing: nothing to sync.
    if (group.length === 0) return;
    const commit = this.durability.committed();
    for (const member of group) this.durability.notify(commit, member.resolve, member.reject);
  }

  /**
   * Commits the open group once it stops growing: at the end of this turn of the event loop, or,
   * while a sync is still running, once it has finished; and then only after a turn in which no
   * transaction joined it, within GROUP_WINDOW_MS (2 ms) of its first transaction. The
   * transactions that end meanwhile join the group, so that one COMMIT and one sync carry all of
   * them: under load the callers answered by the last sync come back with their next writes in
   * the turns right after it, and waiting for them doubled the group (4 -> 9 creates under the
   * bench's 10 connections; create 1.1-1.2x, since each group writes about the same WAL pages
   * whatever its size). A lone transaction waits one more turn; none waits more than the window.
   */
  #scheduleFlush() {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    const opened = this.#now();
    let size = -1;
    const commitOnceSettled = () => {
      const now = this.#group?.length ?? 0;
      if (now > size && this.#now() - opened < this.#groupWindowMs) {
        size = now;
        setImmediate(commitOnceSettled);
        return;
      }
      void this.#flush();
    };
    setImmediate(() => this.durability.onceIdle(commitOnceSettled));
  }

  async #flush() {
    await this.#lock.acquire();
    this.#flushScheduled = false;
    try {
      this.commitGroup();
    } finally {
      this.#lock.release();
    }
  }
}
