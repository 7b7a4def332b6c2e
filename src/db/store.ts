import path from 'node:path';
import { Kysely, type Migration, Migrator, SqliteAdapter, sql } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config.js';
import { StoreHealth, type StoreMonitor } from './health.js';
import { type ListenHandlers, listen } from './listen.js';
import { migrations } from './migrations/index.js';
import { openPostgres } from './postgres.js';
import type { Database, Db } from './schema.js';
import { type BackupResult, backupSqlite } from './sqlite/backup.js';

export type { BackupResult };

import { openSqlite, type StorageSeams } from './sqlite/open.js';
import { poolDatabase, type ReadHold, ReadPool } from './sqlite/read-pool.js';

export type StoreKind = 'sqlite' | 'postgres';

export interface Store {
  readonly kind: StoreKind;
  /** The store's name as people read it (logs, the start-up lines). */
  readonly name: 'SQLite' | 'PostgreSQL';
  /**
   * A database server of its own (PostgreSQL), which other processes and machines reach and whose
   * backups leave this machine; SQLite is a file beside the process.
   */
  readonly server: boolean;
  readonly db: Db;
  /**
   * Where the long reads (the lists) run: on SQLite with read threads, a Kysely instance over
   * them (db/sqlite/read-pool.ts); otherwise `db` itself.
   */
  readonly reads: Db;
  /** Long reads one business may run at once (lib/business-gate.ts): fewer than the threads or connections. */
  readonly readsPerBusiness: number;
  /** The pg pool, for PostgreSQL-only features such as LISTEN/NOTIFY (inside src/db only). */
  readonly pgPool?: pg.Pool;
  /**
   * PostgreSQL: a LISTEN on `channel` held for good (db/listen.ts), to hear other processes'
   * NOTIFYs; returns the function that stops it. SQLite (one process): absent.
   */
  readonly listen?: (channel: string, handlers: ListenHandlers) => () => void;
  /**
   * A number that changes whenever another connection commits a change the API key cache depends
   * on, so that cached keys notice the admin CLI's (or another process's) writes. SQLite: its
   * data_version (any commit; one statement, no transaction left open). PostgreSQL: see
   * keyChanges (a notification from triggers on the keys and businesses, no query per request).
   */
  readonly otherCommits?: () => number;
  /**
   * SQLite: a stamp that moves with every commit to the store, whatever process or connection
   * makes it: another connection's (data_version) or one of this connection's own (a group's
   * COMMIT, a write outside a transaction: counted in the same turn as it becomes visible here).
   * While it stands, nothing read before has changed. PostgreSQL: absent (no such signal).
   */
  readonly changeStamp?: () => string;
  /** Whether the store answers, as this process sees it (db/health.ts): /readyz, metrics, logs. */
  readonly health: StoreHealth;
  /**
   * SQLite: a consistent copy of the store written to `out` while it keeps serving and writing
   * (db/sqlite/backup.ts). PostgreSQL: absent (pg_dump makes its backups).
   */
  readonly backup?: (out: string) => Promise<BackupResult>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class MigrationError extends Error {}

/**
 * The channel the API keys' and businesses' triggers NOTIFY on (migration 2026-11-24T08-00 keeps
 * its own copy of the name: migrations never import application code, nor the reverse).
 */
const KEYS_CHANNEL = 'receivables_keys';

/** How long a cached key may be served at most on PostgreSQL, whatever the notifications did. */
const KEY_EPOCH_MS = 60_000;

/**
 * Issue 26: PostgreSQL's signal for the API key cache. A LISTEN on KEYS_CHANNEL (migration
 * 2026-11-24T08-00: triggers on api_keys and businesses NOTIFY it on commit, from any process)
 * moves the version on every notification and each time the LISTEN is in place again (what was
 * missed meanwhile); while it is not in place, every read is a new version, so nothing cached is
 * served. A change is seen once its notification arrives, milliseconds after its commit; and the
 * version moves every minute too, so an entry never outlives a lost notification for long.
 */
function keyChanges(pool: pg.Pool): { version: () => number; stop: () => void } {
  let moves = 0;
  let listening = false;
  let stop: (() => void) | undefined;
  let stopped = false;
  return {
    // Negative while not listening: never a value that was served while listening.
    version: () => {
      // Started by the first read (the API's first authentication), so that the CLI and
      // migrations, which cache no keys, hold no LISTEN connection.
      if (!stop && !stopped) {
        stop = listen(pool, KEYS_CHANNEL, {
          onNotify: () => moves++,
          onListening: () => {
            listening = true;
            moves++;
          },
          onLost: () => {
            listening = false;
          },
        });
      }
      return listening ? moves * 1e6 + (Math.floor(Date.now() / KEY_EPOCH_MS) % 1e6) : -++moves;
    },
    stop: () => {
      stopped = true;
      listening = false;
      stop?.();
    },
  };
}

/**
 * `backgroundCheckpoints`: on SQLite, checkpoint the WAL on a thread of its own (long-running
 * processes: the server and the worker; see db/sqlite/checkpointer.ts).
 */
export function openStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolMax'> &
    Partial<Pick<Config, 'pgStatementTimeoutMs' | 'readThreads' | 'readsPerBusiness'>>,
  opts: {
    backgroundCheckpoints?: boolean;
    monitor?: StoreMonitor;
    /** SQLite: told when writes stop on a storage fault (with its cause) and when they resume (null). */
    onStorageFault?: (failure: Error | null) => void;
    sqlite?: StorageSeams;
    /** SQLite read threads: test seam that holds chosen reads in their thread */
    readHold?: ReadHold;
  } = {},
): Store {
  const health = new StoreHealth(opts.monitor);
  const perBusiness = (capacity: number) => config.readsPerBusiness || Math.max(1, capacity);
  if (config.databaseUrl) {
    const { dialect, pool } = openPostgres(
      config.databaseUrl,
      config.pgPoolMax,
      health,
      config.pgStatementTimeoutMs ?? 0,
    );
    const db = new Kysely<Database>({ dialect });
    const keys = keyChanges(pool);
    return {
      kind: 'postgres',
      name: 'PostgreSQL',
      server: true,
      db,
      reads: db,
      // Half the pool: one business's lists leave the other half to everyone else.
      readsPerBusiness: perBusiness(Math.floor(config.pgPoolMax / 2)),
      pgPool: pool,
      listen: (channel, handlers) => listen(pool, channel, handlers),
      otherCommits: keys.version,
      health,
      ping: async () => {
        await sql`select 1`.execute(db);
        health.succeeded();
      },
      close: async () => {
        health.stop();
        keys.stop();
        await db.destroy();
      },
    };
  }
  const { dialect, driver, checkpointer } = openSqlite(config.dataDir, {
    backgroundCheckpoints: opts.backgroundCheckpoints ?? false,
    ...(opts.onStorageFault && { onFault: opts.onStorageFault }),
    ...opts.sqlite,
  });
  const db = new Kysely<Database>({ dialect });
  const threads = config.readThreads ?? 0;
  const pool =
    threads > 0 ? new ReadPool(path.join(config.dataDir, 'receivables.db'), threads, opts.readHold) : undefined;
  // A read on a thread shows only what is durable: a read on the main connection first commits
  // the open group and waits for its fsync (db/sqlite/driver.ts).
  const reads = pool
    ? poolDatabase(pool, async () => {
        await sql`select 1`.execute(db);
      })
    : db;
  return {
    kind: 'sqlite',
    name: 'SQLite',
    server: false,
    db,
    reads,
    // One thread fewer than there are: another business always finds one.
    readsPerBusiness: perBusiness(threads - 1),
    otherCommits: () => driver.dataVersion(),
    changeStamp: () => `${driver.dataVersion()}:${driver.durability.commits}`,
    health,
    backup: (out) => backupSqlite(path.join(config.dataDir, 'receivables.db'), out),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      if (pool) await reads.destroy();
      await db.destroy();
      await checkpointer?.stop();
    },
  };
}

/**
 * How many of this code's migrations the store has not applied (all of them on a new store): one
 * small read, no lock, nothing written. For the admin CLI's commands that only read.
 */
export async function pendingMigrations(db: Db): Promise<number> {
  let applied: Set<string>;
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    applied = new Set(rows.rows.map((r) => r.name));
  } catch {
    return Object.keys(migrations).length;
  }
  return Object.keys(migrations).filter((name) => !applied.has(name)).length;
}

/**
 * Applies pending migrations and fails loudly: a half-migrated store must never serve.
 *
 * Several processes may start at once (a server and a worker after an upgrade). On PostgreSQL
 * Kysely's migrator takes an advisory lock in its transaction. On SQLite it takes no lock at all
 * (it assumes one connection), so two processes ran the same migration side by side (seen: the
 * second failed on the migration table's unique name); here the whole run happens inside one
 * BEGIN IMMEDIATE, which holds SQLite's write lock across processes, so the others wait and then
 * find nothing left to do. It also makes a run all or nothing.
 */
export async function migrate(db: Db): Promise<string[]> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return runMigrations(db);
  // An index build over a million rows may take longer than PG_STATEMENT_TIMEOUT_MS: lifted
  // for this one connection while it migrates.
  return db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    try {
      return await runMigrations(conn);
    } finally {
      await sql`reset statement_timeout`.execute(conn);
    }
  });
}

/**
 * PostgreSQL runs every pending migration in one transaction. A migration that writes rows of a
 * table with deferred triggers (the data version's, fired at commit) leaves trigger events
 * pending, and PostgreSQL then refuses any later ALTER TABLE or CREATE INDEX on that table in the
 * same transaction ("cannot ALTER TABLE ... because it has pending trigger events"): a store
 * holding data could not be upgraded across two such migrations. Before each migration the
 * pending events are fired (SET CONSTRAINTS ALL IMMEDIATE, for the rest of the run).
 */
function firingDeferredTriggers(all: Record<string, Migration>): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(all).map(([name, m]) => [
      name,
      {
        ...m,
        up: async (db: Kysely<any>) => {
          await sql`set constraints all immediate`.execute(db);
          await m.up(db);
        },
      },
    ]),
  );
}

async function runMigrations(db: Db): Promise<string[]> {
  const onSqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const all = onSqlite ? migrations : firingDeferredTriggers(migrations);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => all },
    // Migrations are written side by side and named by when their work began, so one may be
    // released after another whose name sorts later (a store that ran 2026-11-27T05-00 may then
    // receive 2026-11-27T02-00). Each is independent of those beside it; without this, Kysely
    // refuses such a store ("corrupted migrations") and it could never be upgraded.
    allowUnorderedMigrations: true,
  });
  if (onSqlite) await beginImmediate(db);
  let result: Awaited<ReturnType<Migrator['migrateToLatest']>>;
  try {
    result = await migrator.migrateToLatest();
  } catch (error) {
    if (onSqlite) await sql`rollback`.execute(db);
    throw error;
  }
  const { error, results } = result;
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    if (onSqlite) await sql`rollback`.execute(db);
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new MigrationError(`migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
  if (onSqlite) await sql`commit`.execute(db);
  return (results ?? []).map((r) => r.migrationName);
}

/** SQLite's write lock, waited for as long as another process's migrations may take. */
async function beginImmediate(db: Db, waitMs = 15 * 60_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await sql`begin immediate`.execute(db);
      return;
    } catch (error) {
      // SQLITE_BUSY once busy_timeout (5 s) has passed: another process still holds the lock.
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
    }
  }
}
