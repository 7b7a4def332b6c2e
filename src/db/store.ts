import type pg from 'pg';
import type { Config } from '../config.js';
import { StoreHealth, type StoreMonitor } from './health.js';
import type { ListenHandlers } from './listen.js';
import { openPostgresStore } from './postgres/store.js';
import type { Db } from './schema.js';
import type { BackupResult } from './sqlite/backup.js';
import type { StorageSeams } from './sqlite/open.js';
import type { ReadHold } from './sqlite/read-pool.js';
import { openSqliteStore } from './sqlite/store.js';

/** Migrating is db/migrate.ts's; exported here too, beside openStore, for the entry points. */
export { MigrationError, migrate, pendingMigrations } from './migrate.js';
export type { BackupResult };

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

/**
 * Opens the store the config names: PostgreSQL with a database URL (db/postgres/store.ts), else
 * SQLite in the data directory (db/sqlite/store.ts).
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
  if (config.databaseUrl) return openPostgresStore(config.databaseUrl, config, health, perBusiness);
  return openSqliteStore(config, health, perBusiness, opts);
}
