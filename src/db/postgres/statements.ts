import { CompiledQuery, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { HALF_LIFE_DAYS, type PaidSums } from '../../lib/payment-score.js';
import type { Db, Executor, Trx } from '../schema.js';
import { NOTIFY_AFTER_COMMIT } from './queries.js';
import { pgExactTime } from './text-sql.js';

/**
 * PostgreSQL's half of the store port (db/port.ts): the statements it writes its own way. Every
 * export here has its namesake in db/sqlite/statements.ts.
 */

export { writeDueForContact } from './due-for-contact.js';
export { applyTotals, movePendingToOverdue } from './totals.js';
export { insertEach, writeRows } from './writes.js';

type Select = SelectQueryBuilder<any, any, any>;

export function lockRows<Q extends Select>(query: Q, opts: { of?: string; skipLocked?: boolean }): Q {
  const locked = query.forUpdate(opts.of as never);
  return (opts.skipLocked ? locked.skipLocked() : locked) as Q;
}

export async function lockNow(query: Select, opts: { noKey?: boolean }): Promise<void> {
  await (opts.noKey ? query.forNoKeyUpdate() : query.forUpdate()).execute();
}

/**
 * One snapshot for every read (REPEATABLE READ) and no row lock: readers and writers of the same
 * rows do not wait for each other, and a read-only transaction never fails to serialize.
 */
export function readTogether<T>(db: Db, read: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
}

export async function lockTimeout(trx: Executor, seconds: number): Promise<void> {
  await sql`set local lock_timeout = ${sql.lit(`${seconds}s`)}`.execute(trx);
}

/**
 * One index lookup per number, made so by the query's shape (a LATERAL subquery with LIMIT 1 is
 * never flattened into a join): see bulk/repository.ts existingInvoiceNumbers.
 */
export async function usedInvoiceNumbers(db: Executor, businessId: string, numbers: string[]): Promise<string[]> {
  const { rows } = await usedInvoiceNumbersQuery(businessId, numbers).execute(db);
  return rows.map((r) => r.invoice_number);
}

/** usedInvoiceNumbers' statement (exported for its query-plan test). */
export function usedInvoiceNumbersQuery(businessId: string, numbers: string[]) {
  return sql<{ invoice_number: string }>`
    select n.invoice_number from unnest(${numbers}::text[]) as n(invoice_number)
    cross join lateral (
      select 1 from transactions t
      where t.business_id = ${businessId} and t.invoice_number = n.invoice_number and t.deleted_at is null
      limit 1
    ) as used`;
}

/** One import of a business at a time: a lock held to the end of the transaction. */
export async function lockImports(trx: Executor, businessId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`import:${businessId}`}))`.execute(trx);
}

export function jsonArrays(items: readonly RawBuilder<unknown>[], orderBy?: RawBuilder<unknown>): RawBuilder<never> {
  const order = orderBy ? sql` order by ${orderBy}` : sql``;
  return sql`json_agg(json_build_array(${sql.join(items)})${order})`;
}

/** PostgreSQL plans with statistics (and has no unary + on dates and timestamps): the column as it is. */
export function offIndex<T>(column: string): RawBuilder<T> {
  return sql<T>`${sql.ref(column)}`;
}

/** The microseconds PostgreSQL keeps, which a value read through pg's Date would cut. */
export function exactTime(column: string): RawBuilder<string> {
  return pgExactTime(sql.ref(column));
}

/** The values as one array parameter, compared with = ANY. */
export function inList(column: string, values: never): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} = any(${values})`;
}

export function listArg(values: readonly (string | number)[]): never {
  return values as never;
}

export function isoMillis(x: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${x} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** PostgreSQL's trigram index on names is weighed by its planner: no table of name trigrams to probe. */
export async function fewNameTrigramMatches(
  _db: Executor,
  _phrase: string,
  _enough: () => Promise<number>,
): Promise<boolean> {
  return false;
}

/** One statement; the row is locked for the UPDATE, so concurrent settlements of one contact's dues add up. */
export async function addScoreSums(db: Executor, businessId: string, contactId: string, s: PaidSums): Promise<void> {
  const half = HALF_LIFE_DAYS;
  const epoch = sql`greatest(contact_scores.epoch_day, excluded.epoch_day)`;
  const old = sql`power(2::float8, (contact_scores.epoch_day - ${epoch})::float8 / ${sql.lit(half)})`;
  const add = sql`power(2::float8, (excluded.epoch_day - ${epoch})::float8 / ${sql.lit(half)})`;
  await sql`insert into contact_scores (contact_id, business_id, epoch_day, weighted, weights, terms)
    values (${contactId}, ${businessId}, ${s.epochDay}, ${s.weighted}::float8, ${s.weights}::float8, ${s.terms})
    on conflict (contact_id) do update set
      epoch_day = ${epoch},
      weighted = contact_scores.weighted * ${old} + excluded.weighted * ${add},
      weights = contact_scores.weights * ${old} + excluded.weights * ${add},
      terms = contact_scores.terms + excluded.terms`.execute(db);
}

/** Sent once the writer's transaction commits (db/postgres/queries.ts: a NOTIFY inside it serialised commits). */
export async function notifyAfterCommit(db: Executor, channel: string): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(NOTIFY_AFTER_COMMIT, [channel, '']));
}

/** A due and its consequences are one statement, atomic without a transaction (writeDueForContact). */
export const writesDueAlone = true;
