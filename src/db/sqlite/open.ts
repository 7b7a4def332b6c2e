import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Driver, type SqliteDatabase, SqliteDialect } from 'kysely';
import { BACKSTOP_PAGES, Checkpointer } from './checkpointer.js';
import { GroupCommitSqliteDriver, type Statement, type Statements } from './driver.js';
import { type FileSync, fileSync } from './durability.js';

/**
 * Kysely's SQLite driver prepares every statement again on each query, which costs a third of the
 * throughput of a primary-key read (issue 2 measured 0.21x vs 0.33x of bare node:http). Our
 * queries come from a small set of builders, so a bounded cache of prepared statements keyed by
 * SQL text keeps them hot.
 */
function withStatementCache(db: BetterSqlite3.Database, max = 500): Statements {
  const cache = new Map<string, Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        const prepared = db.prepare(sql);
        stmt = prepared as unknown as Statement;
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/**
 * Where tests put storage faults (a full disk, a failed fsync) without filling a disk: the sync
 * of the WAL, and the statements the driver runs (a COMMIT failing with SQLITE_FULL). Production
 * passes neither.
 */
export interface StorageSeams {
  walSync?: (file: string) => FileSync;
  statements?: (real: Statements) => Statements;
}

class AppSqliteDialect extends SqliteDialect {
  readonly #driver: GroupCommitSqliteDriver;
  constructor(raw: BetterSqlite3.Database, driver: GroupCommitSqliteDriver) {
    super({ database: raw as unknown as SqliteDatabase });
    this.#driver = driver;
  }
  override createDriver(): Driver {
    return this.#driver;
  }
}

/**
 * Opens the store's one connection. `backgroundCheckpoints` moves WAL checkpoints to a thread of
 * their own (checkpointer.ts): for long-running processes; short ones (the admin CLI,
 * tests) need not start a thread.
 */
export function openSqlite(
  dataDir: string,
  opts: { backgroundCheckpoints?: boolean; onFault?: (failure: Error | null) => void } & StorageSeams = {},
): {
  dialect: SqliteDialect;
  driver: GroupCommitSqliteDriver;
  raw: BetterSqlite3.Database;
  checkpointer: Checkpointer | undefined;
} {
  // PRODUCT part 16: the data folder is the owner's alone (0700) and so are its files (0600).
  // SQLite gives its -wal and -shm files the database file's permissions.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dataDir, 0o700);
  const file = path.join(dataDir, 'receivables.db');
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  const raw = new BetterSqlite3(file);
  // PRODUCT part 1: WAL + synchronous=FULL, so a write answered 2xx survives a kill or power loss.
  // FULL's fsync at each COMMIT would block the event loop for the whole disk round trip, so the
  // driver makes that same fsync of the WAL itself, off the loop, before it answers anything
  // (db/sqlite/durability.ts); SQLite's own commit sync is therefore off (NORMAL).
  raw.pragma('journal_mode = WAL');
  for (const companion of [`${file}-wal`, `${file}-shm`]) if (fs.existsSync(companion)) fs.chmodSync(companion, 0o600);
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -65536');
  // Every transaction runs as a savepoint inside its group (driver.ts), and a savepoint
  // keeps the original of each page it changes in a statement journal, a temporary file by
  // default: that file I/O was half the cost of inserting a due. It only serves rolling back a
  // savepoint, so it lives in memory (as do sorts, which our indexed queries rarely need).
  raw.pragma('temp_store = memory');
  let checkpointer: Checkpointer | undefined;
  if (opts.backgroundCheckpoints) {
    raw.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    checkpointer = new Checkpointer(file);
  }
  const statements = withStatementCache(raw);
  const driver = new GroupCommitSqliteDriver(
    raw,
    opts.statements?.(statements) ?? statements,
    (opts.walSync ?? fileSync)(`${file}-wal`),
    opts.onFault ? { onFault: opts.onFault } : {},
  );
  return { dialect: new AppSqliteDialect(raw, driver), driver, raw, checkpointer };
}
