import type { SelectQueryBuilder } from 'kysely';
import * as postgres from './postgres/statements.js';
import { isPostgres } from './precompiled.js';
import type { Executor } from './schema.js';
import * as sqlite from './sqlite/statements.js';

/**
 * The store as the domain sees it: what the two stores do differently, behind one typed function
 * each. The handle (`db` or a transaction) says which store it is; the adapters in db/sqlite/ and
 * db/postgres/ hold the statements. Nothing outside src/db asks which store it runs on
 * (src/architecture.test.ts checks it).
 */
export type StoreStatements = typeof sqlite;

/** The adapter of the store `db` runs on (both implement the same statements). */
export function statementsOf(db: Executor): StoreStatements {
  const adapter: StoreStatements = isPostgres(db) ? postgres : sqlite;
  return adapter;
}

type Select = SelectQueryBuilder<any, any, any>;

/**
 * The rows a select reads, locked until the transaction ends (FOR UPDATE, `skipLocked`: rows
 * another transaction holds are passed over; `of`: only that table's rows). SQLite has one
 * writer, whose transaction holds every row already: the query is left as it is. Use with
 * `.$call(lockedRows(db))`.
 */
export function lockedRows(db: Executor, opts: { of?: string; skipLocked?: boolean } = {}) {
  const lock = statementsOf(db).lockRows;
  return <Q extends Select>(query: Q): Q => lock(query, opts);
}

/**
 * Takes row locks with `query` and reads nothing from it (PostgreSQL: FOR UPDATE, or FOR NO KEY
 * UPDATE with `noKey`, which lets foreign-key checks of new rows through). SQLite: no statement.
 */
export function lockRowsNow(db: Executor, query: Select, opts: { noKey?: boolean } = {}): Promise<void> {
  return statementsOf(db).lockNow(query, opts);
}

/** How long a statement of the transaction waits for a row lock before failing (PostgreSQL; SQLite has none). */
export function lockTimeout(trx: Executor, seconds: number): Promise<void> {
  return statementsOf(trx).lockTimeout(trx, seconds);
}

/** Which of these invoice numbers belong to a (not deleted) due of the business. */
export function usedInvoiceNumbers(db: Executor, businessId: string, numbers: string[]): Promise<string[]> {
  return statementsOf(db).usedInvoiceNumbers(db, businessId, numbers);
}

/** One import of a business at a time (PostgreSQL: an advisory lock to the end of the transaction; SQLite: one writer). */
export function lockImports(trx: Executor, businessId: string): Promise<void> {
  return statementsOf(trx).lockImports(trx, businessId);
}

/**
 * Runs `work`, a bulk insert of a business's dues in chunks, which calls `chunkWritten` after each
 * chunk: the business's data version moves once per chunk instead of once per row (SQLite: its
 * per-row trigger is off meanwhile, in the same transaction; PostgreSQL moves it once at commit).
 */
export function writingDuesInChunks<T>(
  trx: Executor,
  businessId: string,
  work: (chunkWritten: () => Promise<void>) => Promise<T>,
): Promise<T> {
  return statementsOf(trx).writingDuesInChunks(trx, businessId, work);
}
