import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { HALF_LIFE_DAYS, type PaidSums } from '../../lib/payment-score.js';
import type { Db, Executor, Trx } from '../schema.js';
import type { TableRows } from '../table-rows.js';
import type { TotalsDeltas } from '../totals-deltas.js';

/**
 * SQLite's half of the store port (db/port.ts): the statements it writes its own way. Every
 * export here has its namesake in db/postgres/statements.ts.
 */

export { applyTotals, movePendingToOverdue } from './totals.js';
export { insertEach, writeRows } from './writes.js';

type Select = SelectQueryBuilder<any, any, any>;

/** One writer at a time: its transaction holds every row already. */
export function lockRows<Q extends Select>(query: Q, _opts: { of?: string; skipLocked?: boolean }): Q {
  return query;
}

export async function lockNow(_query: Select, _opts: { noKey?: boolean }): Promise<void> {}

/** A transaction: one writer at a time, so nothing changes between its reads. */
export function readTogether<T>(db: Db, read: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().execute(read);
}

/** A writer waits busy_timeout for the write lock; there are no row locks. */
export async function lockTimeout(_trx: Executor, _seconds: number): Promise<void> {}

/** The IN list, planned with the (business_id, invoice_number) index: see bulk/repository.ts existingInvoiceNumbers. */
export async function usedInvoiceNumbers(db: Executor, businessId: string, numbers: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('transactions')
    .select('invoice_number')
    .distinct()
    .where('business_id', '=', businessId)
    .where('invoice_number', 'in', numbers)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.invoice_number as string);
}

/** SQLite has one writer at a time: imports take turns without a lock of their own. */
export async function lockImports(_trx: Executor, _businessId: string): Promise<void> {}

export function jsonArrays(items: readonly RawBuilder<unknown>[], orderBy?: RawBuilder<unknown>): RawBuilder<never> {
  const order = orderBy ? sql` order by ${orderBy}` : sql``;
  return sql`json_group_array(json_array(${sql.join(items)})${order})`;
}

/** SQLite plans without statistics: `+column` keeps the planner from picking an index for it. */
export function offIndex<T>(column: string): RawBuilder<T> {
  return sql<T>`+${sql.ref(column)}`;
}

/** SQLite stores the time's text itself, to its full precision. */
export function exactTime(column: string): RawBuilder<string> {
  return sql<string>`${sql.ref(column)}`;
}

/** The values as one JSON array, read by json_each. */
export function inList(column: string, values: never): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} in (select value from json_each(${values}))`;
}

export function listArg(values: readonly (string | number)[]): never {
  return JSON.stringify(values) as never;
}

/** SQLite holds times as the API's ISO text already. */
export function isoMillis(x: RawBuilder<unknown>): RawBuilder<string> {
  return x as RawBuilder<string>;
}

/**
 * Whether the FTS5 trigram table (migration 2026-11-24T12-00) holds fewer than `enough()` matches
 * of `phrase`: read at most that many (none when it is 0).
 */
export async function fewNameTrigramMatches(
  db: Executor,
  phrase: string,
  enough: () => Promise<number>,
): Promise<boolean> {
  const limit = await enough();
  if (limit === 0) return false;
  const probe = await sql<{ n: number }>`select count(*) as n from (
      select 1 from contacts_name_fts where contacts_name_fts match ${phrase} limit ${limit}
    )`.execute(db);
  return Number(probe.rows[0]?.n ?? limit) < limit;
}

/** One statement: the row created, or rescaled to the later epoch and added to. */
export async function addScoreSums(db: Executor, businessId: string, contactId: string, s: PaidSums): Promise<void> {
  const half = HALF_LIFE_DAYS;
  const epoch = sql`max(contact_scores.epoch_day, excluded.epoch_day)`;
  const old = sql`pow(2.0, (contact_scores.epoch_day - ${epoch}) / ${sql.lit(`${half}.0`)})`;
  const add = sql`pow(2.0, (excluded.epoch_day - ${epoch}) / ${sql.lit(`${half}.0`)})`;
  await sql`insert into contact_scores (contact_id, business_id, epoch_day, weighted, weights, terms)
    values (${contactId}, ${businessId}, ${s.epochDay}, ${s.weighted}, ${s.weights}, ${s.terms})
    on conflict (contact_id) do update set
      epoch_day = ${epoch},
      weighted = contact_scores.weighted * ${old} + excluded.weighted * ${add},
      weights = contact_scores.weights * ${old} + excluded.weights * ${add},
      terms = contact_scores.terms + excluded.terms`.execute(db);
}

/** One process: the in-memory signal is all there is. */
export async function notifyAfterCommit(_db: Executor, _channel: string): Promise<void> {}

/** One writer, group commit: a create is its transaction's writes (writesDueAlone is false). */
export const writesDueAlone: boolean = false;

export async function writeDueForContact(
  _db: Executor,
  _row: Record<string, unknown>,
  _omit: readonly string[],
  _writes: readonly TableRows[],
  _totals: { businessId: string; deltas: TotalsDeltas },
): Promise<'written' | 'contact changed'> {
  throw new Error('writeDueForContact: SQLite writes a due in a transaction (writesDueAlone)');
}
