import path from 'node:path';
import { Kysely, sql } from 'kysely';
import type { Config } from '../../config.js';
import type { StoreHealth } from '../health.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { backupSqlite } from './backup.js';
import { openSqlite, type StorageSeams } from './open.js';
import { poolDatabase, type ReadHold, ReadPool } from './read-pool.js';

/** The Store over a SQLite file in `config.dataDir` (db/store.ts openStore, without a database URL). */
export function openSqliteStore(
  config: Pick<Config, 'dataDir'> & Partial<Pick<Config, 'readThreads'>>,
  health: StoreHealth,
  readsPerBusiness: (capacity: number) => number,
  opts: {
    backgroundCheckpoints?: boolean;
    onStorageFault?: (failure: Error | null) => void;
    sqlite?: StorageSeams;
    readHold?: ReadHold;
  },
): Store {
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
    readsPerBusiness: readsPerBusiness(threads - 1),
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
