import { PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import type { StoreHealth } from '../health.js';
import { notifier, wrapQueries } from './queries.js';

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

/**
 * The pool, and what Kysely gets of it. No pg error may crash the process (an 'error' event
 * without a listener throws): the pool's own 'error' covers idle clients, and every client gets a
 * listener of its own when it connects, for the time it is checked out (a transaction waiting
 * between two queries, the LISTEN connection). Every connection failure is reported to `health`,
 * which makes one outage of them; a new connection that succeeds ends it.
 */
export function openPostgres(
  connectionString: string,
  max: number,
  health: StoreHealth,
  statementTimeoutMs = 0,
): { dialect: PostgresDialect; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString,
    // One more than asked for: the LISTEN a process holds for good (the key cache's in an API
    // process, the outbox's in a worker) must not take a connection from the queries.
    max: max + 1,
    // PRODUCT part 17: no statement holds a connection for ever (PG_STATEMENT_TIMEOUT_MS); the
    // server cancels it (57014), which answers 503. Migrations lift it for their own connection.
    ...(statementTimeoutMs > 0 && { statement_timeout: statementTimeoutMs }),
    types: { getTypeParser } as unknown as pg.CustomTypesConfig,
    connectionTimeoutMillis: 10_000,
    // TCP keepalive: a connection whose peer vanished without a word (a failover, a cut network),
    // such as the LISTEN connection that only ever reads, errors out instead of waiting for ever.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  pool.on('error', (error) => health.failed(error));
  const notify = notifier(pool);
  pool.on('connect', (client) => {
    client.on('error', (error) => health.failed(error));
    wrapQueries(client, notify);
    health.succeeded();
  });
  health.setProbe(async () => {
    await pool.query('select 1');
  });
  const watched: PostgresPool = {
    async connect() {
      try {
        return await pool.connect();
      } catch (error) {
        health.failed(error);
        throw error;
      }
    },
    end: () => pool.end(),
  };
  return { dialect: new PostgresDialect({ pool: watched }), pool };
}
