import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Column types for migrations written once for both stores. PostgreSQL gets its native types
 * (uuid, timestamptz, date, bigint); SQLite stores the same values as text and integers.
 */
export function columnTypes(db: Kysely<unknown>) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    isPostgres: pg,
    uuid: pg ? sql`uuid` : sql`text`,
    timestamp: pg ? sql`timestamptz` : sql`text`,
    date: pg ? sql`date` : sql`text`,
    money: pg ? sql`bigint` : sql`integer`,
  } as const;
}
