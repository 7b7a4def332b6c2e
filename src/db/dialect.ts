import { PostgresAdapter } from 'kysely';
import type { Executor } from './schema.js';

/**
 * Whether `db` runs on PostgreSQL: the one question of which store a handle is on, asked inside
 * src/db only (db/port.ts picks the adapter with it; src/architecture.test.ts keeps it there).
 */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
