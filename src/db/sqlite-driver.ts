import type BetterSqlite3 from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  type SqliteDatabase,
} from 'kysely';

type Statement = ReturnType<SqliteDatabase['prepare']>;

/** One SQL statement on the single better-sqlite3 connection (as Kysely's own SQLite driver runs it). */
function run<R>(db: SqliteDatabase, sql: string, parameters: readonly unknown[]): QueryResult<R> {
  const stmt: Statement = db.prepare(sql);
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

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One use of the connection: a plain query, or one Kysely transaction. `state` follows a
 * transaction through the group: `open` while it runs, `waiting` once its work is released into
 * the group and it waits for the group's COMMIT (the lock is already handed on by then).
 */
class Lease implements DatabaseConnection {
  state: 'idle' | 'open' | 'waiting' | 'done' = 'idle';
  /** Set when a committed transaction passed the lock on before its group's COMMIT. */
  handedOn = false;
  constructor(readonly driver: GroupCommitSqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // A query outside a transaction must not read a group's work before it is durable.
    if (this.state === 'idle') this.driver.commitGroup();
    return run<R>(this.driver.db, query.sql, query.parameters);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite only streams select queries');
    if (this.state === 'idle') this.driver.commitGroup();
    const stmt = this.driver.db.prepare(query.sql);
    for (const row of stmt.iterate(query.parameters)) yield { rows: [row as R] };
  }
}

/**
 * Kysely's SQLite driver, plus group commit. With `synchronous=FULL` every COMMIT waits for an
 * fsync (0.1-0.3 ms here, during which better-sqlite3 blocks the event loop), and that, not the
 * statements, was most of the cost of creating a due. Here a transaction runs as a SAVEPOINT
 * inside one outer `BEGIN IMMEDIATE`; when it finishes it is RELEASEd into that outer
 * transaction and waits, the connection goes to the next transaction already queued, and at the
 * next turn of the event loop one COMMIT (one fsync) makes the whole group durable. Only then do
 * the transactions of the group return, so no caller is told "done" before its write is on disk.
 *
 * - A transaction that fails rolls back to its savepoint: the others in the group keep their work.
 * - If the COMMIT fails, every transaction of the group fails (none was acknowledged).
 * - A query outside a transaction first commits the open group, so reads never see work that is
 *   not yet durable.
 * - Transactions are taken in arrival order; a group holds those that were queued while it ran.
 */
export class GroupCommitSqliteDriver implements Driver {
  readonly #lock = new FifoLock();
  readonly #database: BetterSqlite3.Database;
  readonly db: SqliteDatabase;
  /** Transactions released into the open outer transaction, waiting for its COMMIT. */
  #group: Waiter[] | null = null;
  #flushScheduled = false;
  /** Counts for tests and metrics: transactions committed, and the COMMITs that carried them. */
  readonly stats = { transactions: 0, commits: 0 };

  constructor(database: BetterSqlite3.Database, statements: SqliteDatabase) {
    this.#database = database;
    this.db = statements;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.acquire();
    return new Lease(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (this.#group === null) {
      // IMMEDIATE: take the write lock now (waiting on busy_timeout if the admin CLI holds it),
      // rather than failing with SQLITE_BUSY on the first write of a deferred transaction.
      run(this.db, 'begin immediate', []);
      this.#group = [];
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
    lease.handedOn = true;
    this.#lock.release();
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
    } finally {
      this.#database.close();
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
        throw new Error('SQLite rolled back the group transaction before its commit');
      }
      run(this.db, 'commit', []);
      this.stats.commits++;
      this.stats.transactions += group.length;
    } catch (error) {
      if (this.#database.inTransaction) this.#database.exec('rollback');
      for (const member of group) member.reject(error);
      return;
    }
    for (const member of group) member.resolve();
  }

  #scheduleFlush() {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(async () => {
      await this.#lock.acquire();
      this.#flushScheduled = false;
      try {
        this.commitGroup();
      } finally {
        this.#lock.release();
      }
    });
  }
}
