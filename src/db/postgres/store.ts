import { Kysely, sql } from 'kysely';
import type { Config } from '../../config.js';
import type { StoreHealth } from '../health.js';
import { listen } from '../listen.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { keyChanges } from './keys.js';
import { openPostgres } from './pool.js';

/** The Store over a PostgreSQL server (db/store.ts openStore, when a database URL is given). */
export function openPostgresStore(
  url: string,
  config: Pick<Config, 'pgPoolMax'> & Partial<Pick<Config, 'pgStatementTimeoutMs'>>,
  health: StoreHealth,
  readsPerBusiness: (capacity: number) => number,
): Store {
  const { dialect, pool } = openPostgres(url, config.pgPoolMax, health, config.pgStatementTimeoutMs ?? 0);
  const db = new Kysely<Database>({ dialect });
  const keys = keyChanges(pool);
  return {
    kind: 'postgres',
    name: 'PostgreSQL',
    server: true,
    db,
    reads: db,
    // Half the pool: one business's lists leave the other half to everyone else.
    readsPerBusiness: readsPerBusiness(Math.floor(config.pgPoolMax / 2)),
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
