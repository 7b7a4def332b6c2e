/**
 * Whether a database error means "the store cannot be reached right now" (a restart, a failover,
 * a dropped connection) rather than a fault of the request or of the code. Such errors are
 * answered 503 `unavailable` with Retry-After (http/error-handler.ts) and are counted as one
 * outage by db/health.ts.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down, in recovery), 53300
 * too_many_connections.
 */
const PG_STATES = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** What node-postgres says when a socket dies or a connection cannot be made in time. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];

export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 3) return false;
  const e = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || PG_STATES.test(e.code))) return true;
  if (typeof e.message === 'string' && PG_MESSAGES.some((re) => re.test(e.message as string))) return true;
  // Node's happy-eyeballs connect throws an AggregateError of the per-address failures.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isStoreUnavailable(inner, depth + 1))) return true;
  return e.cause !== undefined && isStoreUnavailable(e.cause, depth + 1);
}
