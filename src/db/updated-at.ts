import { type RawBuilder, sql } from 'kysely';
import { isPostgres } from './dialect.js';
import type { Executor } from './schema.js';

/**
 * A row's `updated_at` only moves forward (PRODUCT part 26): a client syncing by `since` must never
 * find a change stamped earlier than a version it already holds. So every change stamps
 * max(now, previous + 1 ms), and the previous value is the one read under the row's lock (or,
 * in SQL, the one the UPDATE itself sees once it holds the row): two writers that took the clock
 * in one order and committed in the other still leave increasing stamps in commit order.
 */
export function nextUpdatedAt(previous: string, now: Date): string {
  return new Date(Math.max(now.getTime(), Date.parse(previous) + 1)).toISOString();
}

/**
 * nextUpdatedAt inside an UPDATE's SET, for writes that do not read the row first: evaluated on
 * the row version the UPDATE locks (PostgreSQL re-evaluates it after waiting for a concurrent
 * writer; SQLite has one writer). Both stores keep the result to the millisecond.
 */
export function updatedAtAfter(db: Executor, at: string): RawBuilder<string> {
  return isPostgres(db)
    ? sql<string>`greatest(${at}::timestamptz, updated_at + interval '1 millisecond')`
    : sql<string>`max(${at}, strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '+0.001 seconds'))`;
}
