import { PostgresDialect } from 'kysely';
import pg from 'pg';

/**
 * pg returns int8/numeric as strings, timestamptz as Date and date as Date. We hand back what
 * SQLite gives (numbers, ISO strings, 'YYYY-MM-DD') so that the rest of the code has one path.
 * The parsers are per pool, not global.
 */
const OID = { int8: 20, numeric: 1700, date: 1082, timestamptz: 1184 } as const;

function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  switch (oid) {
    case OID.int8:
    case OID.numeric:
      return Number;
    case OID.date:
      return (v: string) => v;
    case OID.timestamptz:
      return (v: string) => new Date(v).toISOString();
    default:
      return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  }
}

export function openPostgres(connectionString: string, max: number): { dialect: PostgresDialect; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString,
    max,
    types: { getTypeParser } as unknown as pg.CustomTypesConfig,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return { dialect: new PostgresDialect({ pool }), pool };
}
