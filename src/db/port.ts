import type { Insertable, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { PaidSums } from '../lib/payment-score.js';
import { isPostgres } from './dialect.js';
import * as postgres from './postgres/statements.js';
import { textSql as postgresText } from './postgres/text-sql.js';
import type { Database, Db, Executor, Trx } from './schema.js';
import * as sqlite from './sqlite/statements.js';
import { textSql as sqliteText } from './sqlite/text-sql.js';
import type { TableRows } from './table-rows.js';
import type { TextSql } from './text-sql.js';
import type { TotalsDeltas } from './totals-deltas.js';

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

/**
 * Reads that must all see one moment of the store (a statement: the kept months and the rows they
 * sum), without locking what they read: a page view neither waits for a write nor holds one off.
 */
export function readTogether<T>(db: Db, read: (trx: Trx) => Promise<T>): Promise<T> {
  return statementsOf(db).readTogether(db, read);
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
 * An aggregate of one JSON array per row (`items`), in `orderBy`'s order: a JSON array of arrays,
 * NULL over no rows. PostgreSQL hands it over parsed, SQLite as text.
 */
export function jsonArrays(
  db: Executor,
  items: readonly RawBuilder<unknown>[],
  orderBy?: RawBuilder<unknown>,
): RawBuilder<string | unknown[] | null> {
  return statementsOf(db).jsonArrays(items, orderBy);
}

/**
 * A column the planner must not pick an index for: SQLite's `+column`. Only on SQLite, which
 * plans without statistics; PostgreSQL has them.
 */
export function offIndex<T>(db: Executor, column: string): RawBuilder<T> {
  return statementsOf(db).offIndex<T>(column);
}

/**
 * A timestamp column as text to the store's full precision, for a cursor that is compared with the
 * column again (a list's `starting_after`): PostgreSQL keeps microseconds (its now() writes them),
 * which a value read through pg's Date would cut to milliseconds, putting the cursor before or
 * after its own row. SQLite stores the text itself.
 */
export function exactTime(db: Executor, column: string): RawBuilder<string> {
  return statementsOf(db).exactTime(column);
}

/**
 * `column IN (the values)` with all the values in one bound parameter, so that one precompiled
 * statement (db/precompiled.ts) serves any number of them. `values` is a stand-in (`arg`); give its
 * value through `listArg`.
 */
export function inList(db: Executor, column: string, values: never): RawBuilder<boolean> {
  return statementsOf(db).inList(column, values);
}

/** The value of an `inList` stand-in for this store. */
export function listArg(db: Executor, values: readonly (string | number)[]): never {
  return statementsOf(db).listArg(values);
}

/** A timestamp as the API writes it (ISO 8601 UTC with milliseconds). */
export function isoMillis(db: Executor, x: RawBuilder<unknown>): RawBuilder<string> {
  return statementsOf(db).isoMillis(x);
}

/**
 * Whether a name search should read its matches from a table of name trigrams: fewer than
 * `enough()` of them (SQLite's FTS5 table; PostgreSQL has none to probe: false).
 */
export function fewNameTrigramMatches(db: Executor, phrase: string, enough: () => Promise<number>): Promise<boolean> {
  return statementsOf(db).fewNameTrigramMatches(db, phrase, enough);
}

/** Adds `sums` (negative to take them out) to the contact's kept payment-score sums, in one statement. */
export function addScoreSums(db: Executor, businessId: string, contactId: string, sums: PaidSums): Promise<void> {
  return statementsOf(db).addScoreSums(db, businessId, contactId, sums);
}

/** The store's spelling of expressions over text (db/text-sql.ts): the export's CSV lines. */
export function textSql(db: Executor): TextSql {
  return isPostgres(db) ? postgresText : sqliteText;
}

/** Writes a change's deltas to the business's running totals, in the caller's transaction (totals/aggregates.ts). */
export function applyTotals(db: Executor, businessId: string, deltas: TotalsDeltas): Promise<void> {
  return statementsOf(db).applyTotals(db, businessId, deltas);
}

/** The sweeper: `count` dues worth `paise` of a past day move from stored pending to stored overdue. */
export function movePendingDay(
  db: Executor,
  businessId: string,
  dueDate: string,
  count: number,
  paise: number,
): Promise<void> {
  return statementsOf(db).movePendingToOverdue(db, businessId, dueDate, count, paise);
}

/**
 * Inserts many `rows` into one table inside the caller's transaction, each store its fastest way
 * (a bulk import's chunk: bench/bulk-floor.ts): SQLite one prepared single-row INSERT per row,
 * PostgreSQL one statement with the rows as one JSON value. Every row has the same keys, and no
 * value is undefined (give null); `omit` names keys that are not columns.
 */
export function insertEach<T extends keyof Database & string>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  omit: readonly string[] = [],
): Promise<void> {
  return statementsOf(db).insertEach(db, table, rows, omit);
}

/**
 * Writes several tables' new rows and then `totals`' deltas inside the caller's transaction (new
 * dues with their reminders and events): on PostgreSQL all of it one statement (one round trip),
 * on SQLite insertEach per table, then applyTotals.
 */
export function writeRows(
  trx: Executor,
  writes: readonly TableRows[],
  totals?: { businessId: string; deltas: TotalsDeltas },
): Promise<void> {
  return statementsOf(trx).writeRows(trx, writes, totals);
}

/**
 * Asks for a NOTIFY on `channel` when the transaction of `db` commits (PostgreSQL, to every
 * process that LISTENs; db/postgres/queries.ts sends it after the COMMIT). SQLite: one process, nothing.
 */
export function notifyAfterCommit(db: Executor, channel: string): Promise<void> {
  return statementsOf(db).notifyAfterCommit(db, channel);
}

/**
 * Whether a new due for a known contact may be written by writeDueForContact: one statement,
 * atomic without a transaction (PostgreSQL: two round trips fewer, the totals row held for that
 * statement only). Otherwise a create is a transaction of its own.
 */
export function writesDueAlone(db: Executor): boolean {
  return statementsOf(db).writesDueAlone;
}

/**
 * Writes one new due (`row`; `omit` names its keys that are not columns) for a contact read before,
 * with `writes` and its `totals`, as one statement outside a transaction, while the contact is
 * unchanged (the row's contact_name and contact_phone) and holds no credit: else nothing is written
 * and the answer is 'contact changed'. Only where writesDueAlone.
 */
export function writeDueForContact(
  db: Executor,
  row: object,
  omit: readonly string[],
  writes: readonly TableRows[],
  totals: { businessId: string; deltas: TotalsDeltas },
): Promise<'written' | 'contact changed'> {
  return statementsOf(db).writeDueForContact(db, row as Record<string, unknown>, omit, writes, totals);
}
