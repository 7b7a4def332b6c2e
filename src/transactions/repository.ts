import {
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { FuzzyWord } from '../contacts/fuzzy.js';
import { fromFuzzyMatches } from '../contacts/name-terms.js';
import { insertRows } from '../db/insert-rows.js';
import { exactTime, lockedRows, offIndex } from '../db/port.js';
import { precompiled } from '../db/precompiled.js';
import type { Database, Executor, PaymentTable, TransactionTable } from '../db/schema.js';
import { updatedAtAfter } from '../db/updated-at.js';
import { sequenceJson } from '../reminder-schedule/steps.js';
import type { StatusFilter } from './schema.js';

/** A new due as inserted: the lifecycle columns (payments, series, deletion) take their defaults. */
export type TransactionRow = Insertable<TransactionTable>;
export type StoredTransaction = Selectable<TransactionTable>;
export type TransactionView = StoredTransaction & {
  contact_name: string;
  contact_phone: string | null;
};

function withContact(db: Executor, from = db.selectFrom('transactions')) {
  return from
    .innerJoin('contacts', 'contacts.id', 'transactions.contact_id')
    .selectAll('transactions')
    .select(['contacts.name as contact_name', 'contacts.phone as contact_phone']);
}

export function insertTransaction(db: Executor, row: TransactionRow) {
  return insertRows(db, 'transactions', [row]);
}

const findTransactionQuery = precompiled<{ businessId: string; id: string }, TransactionView>((db, arg) =>
  withContact(db)
    .where('transactions.business_id', '=', arg('businessId'))
    .where('transactions.id', '=', arg('id'))
    .where('transactions.deleted_at', 'is', null),
);

/** One due of the business, not deleted, with its contact's name and phone (on every GET: precompiled). */
export async function findTransaction(
  db: Executor,
  businessId: string,
  id: string,
): Promise<TransactionView | undefined> {
  return (await findTransactionQuery(db, { businessId, id }))[0];
}

const findTransactionWithStepsQuery = precompiled<
  { businessId: string; id: string },
  TransactionView & { sequence_steps: string | unknown[] | null }
>((db, arg) =>
  withContact(db)
    .select(sequenceJson(db).as('sequence_steps'))
    .where('transactions.business_id', '=', arg('businessId'))
    .where('transactions.id', '=', arg('id'))
    .where('transactions.deleted_at', 'is', null),
);

/**
 * One due of the business, not deleted, with its contact's name and phone and the steps of its
 * reminder sequence (reminder-schedule/steps.ts sequenceJson): GET one due in one statement.
 */
export async function findTransactionWithSteps(
  db: Executor,
  businessId: string,
  id: string,
): Promise<(TransactionView & { sequence_steps: string | unknown[] | null }) | undefined> {
  return (await findTransactionWithStepsQuery(db, { businessId, id }))[0];
}

/**
 * One due of the business (deleted ones too: the caller decides what they answer), locked until the transaction ends on PostgreSQL (SQLite
 * has one writer at a time): every change to a due's money or dates reads it through this, so a
 * payment and a PATCH of the same due queue instead of both working from the same old row.
 *
 * Its contact's row is locked first: one lock order everywhere, the contact, then its dues (a
 * receipt locks its contact, then the dues it settles; a due's own payment, claim, adjustment or
 * PATCH the same way), so two of them on one contact queue and never deadlock.
 */
export async function lockTransaction(
  db: Executor,
  businessId: string,
  id: string,
): Promise<TransactionView | undefined> {
  await lockContactOfDue(db, businessId, id);
  return withContact(db)
    .where('transactions.business_id', '=', businessId)
    .where('transactions.id', '=', id)
    .$call(lockedRows(db, { of: 'transactions' }))
    .executeTakeFirst();
}

/** The row of a due's contact, locked on PostgreSQL (a due's contact changes only by a merge, which holds both contacts). */
function lockContactOfDue(db: Executor, businessId: string, id: string) {
  return db
    .selectFrom('contacts')
    .select('contacts.id')
    .where('contacts.id', '=', (eb) =>
      eb
        .selectFrom('transactions')
        .select('transactions.contact_id')
        .where('transactions.business_id', '=', businessId)
        .where('transactions.id', '=', id),
    )
    .$call(lockedRows(db))
    .executeTakeFirst();
}

/** Writes changed columns of one due (the service decides them, under lockTransaction). */
export function updateTransaction(
  db: Executor,
  businessId: string,
  id: string,
  patch: Partial<Omit<StoredTransaction, 'id' | 'business_id'>>,
) {
  return db.updateTable('transactions').set(patch).where('business_id', '=', businessId).where('id', '=', id).execute();
}

export function findTransactionByToken(db: Executor, token: string): Promise<TransactionView | undefined> {
  return withContact(db).where('transactions.pay_token', '=', token).executeTakeFirst();
}

export interface TransactionFilter {
  status?: StatusFilter | undefined;
  contactId?: string | undefined;
  since?: string | undefined;
  /**
   * `since` matches many of the business's dues (sinceMatchesMany): the list walks the due-date
   * order and checks `since` on the way instead of sorting every match.
   */
  sinceMatchesMany?: boolean | undefined;
  /** due dates within these bounds, both inclusive (YYYY-MM-DD) */
  dueFrom?: string | undefined;
  dueTo?: string | undefined;
  /** the contact's name matches every word within one typo (contacts/fuzzy.ts) */
  contactName?: FuzzyWord[] | undefined;
  /** the business's local date, which splits pending from overdue */
  today: string;
  /** deleted dues too (incremental sync with include_deleted) */
  includeDeleted?: boolean | undefined;
}

/**
 * The filters as one condition, shared by the list and its count.
 *
 * The status filters are index ranges (transactions_business_open_due): stored overdue dues always
 * have a past due date, so "overdue" is exactly "open and due before today", and "pending" is
 * "open and due today or later", whether or not the sweeper has run yet.
 *
 * With a contact or a `since` filter, the status terms are kept off the index (offIndex): SQLite
 * has no statistics and otherwise walked every open due of the business in date order looking
 * for one contact's (6 s at 1M dues for a contact with 26), where the contact's index (or the
 * updated_at one) holds just the rows wanted. A `since` that matches many dues is the opposite
 * case: then `updated_at` is kept off the index and the list walks the due-date order.
 */
function filterCondition(
  db: Executor,
  eb: ExpressionBuilder<Database, 'transactions'>,
  businessId: string,
  f: TransactionFilter,
) {
  const sinceByIndex = f.since !== undefined && !f.sinceMatchesMany;
  const narrower = f.contactId !== undefined || sinceByIndex;
  const open = narrower ? offIndex<number>(db, 'transactions.open') : sql.ref<number>('transactions.open');
  const dueDate = narrower ? offIndex<string>(db, 'transactions.due_date') : sql.ref<string>('transactions.due_date');
  const terms: Expression<SqlBool>[] = [eb('transactions.business_id', '=', businessId)];
  switch (f.status) {
    case 'pending':
      terms.push(eb(open, '=', 1), eb(dueDate, '>=', f.today));
      break;
    case 'overdue':
      terms.push(eb(open, '=', 1), eb(dueDate, '<', f.today));
      break;
    case 'outstanding':
      terms.push(eb(open, '=', 1));
      break;
    case 'paid':
      terms.push(eb(open, '=', 0));
      break;
    default:
      // Deleted dues are open = -1: outside every status range, and left out of the plain list by
      // a term kept off the index (few rows are deleted; the due-date index keeps serving the order).
      if (!f.includeDeleted) terms.push(eb(offIndex<number>(db, 'transactions.open'), '>=', 0));
  }
  if (f.contactId !== undefined) terms.push(eb('transactions.contact_id', '=', f.contactId));
  if (f.since !== undefined) {
    const updatedAt = sinceByIndex
      ? sql.ref<string>('transactions.updated_at')
      : offIndex<string>(db, 'transactions.updated_at');
    terms.push(eb(updatedAt, '>=', f.since));
  }
  if (f.dueFrom !== undefined) terms.push(eb(dueDate, '>=', f.dueFrom));
  if (f.dueTo !== undefined) terms.push(eb(dueDate, '<=', f.dueTo));
  return eb.and(terms);
}

/** Dues whose contact's name matches the fuzzy query (contacts/name-terms.ts). */
function matchingDues(db: Executor, businessId: string, words: FuzzyWord[]) {
  return fromFuzzyMatches(db, businessId, words, 'transactions');
}

/** Where a page starts (PRODUCT part 17): the list's order keys of the row given as `starting_after`. */
export interface ListPosition {
  due_date: string;
  created_at: string;
  id: string;
}

/** The order keys of one due of the business (deleted ones too: its place in the order stands). */
export function findListPosition(db: Executor, businessId: string, id: string): Promise<ListPosition | undefined> {
  return db
    .selectFrom('transactions')
    .select(['due_date', exactTime(db, 'created_at').as('created_at'), 'id'])
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

function keysAfter(eb: ExpressionBuilder<Database, 'transactions'>, after: ListPosition) {
  // Every order key descends, so the rows after the cursor are those with smaller keys: one
  // range of the same index the list walks (a row value compares column by column).
  return eb(
    eb.refTuple('transactions.due_date', 'transactions.created_at', 'transactions.id'),
    '<',
    eb.tuple(after.due_date, after.created_at, after.id),
  );
}

/** The list's order, on any query over transactions. */
function ordered<TB extends keyof Database, O>(
  q: SelectQueryBuilder<Database, TB | 'transactions', O>,
  direction: 'asc' | 'desc' = 'desc',
) {
  return q
    .orderBy(sql.ref('transactions.due_date'), direction)
    .orderBy(sql.ref('transactions.created_at'), direction)
    .orderBy(sql.ref('transactions.id'), direction);
}

function listQuery(
  db: Executor,
  q: ReturnType<typeof withContact>,
  businessId: string,
  filter: TransactionFilter,
  limit: number,
  offset: number,
  after?: ListPosition,
) {
  const where = (eb: ExpressionBuilder<Database, 'transactions'>) => {
    const condition = filterCondition(db, eb, businessId, filter);
    return after === undefined ? condition : eb.and([condition, keysAfter(eb, after)]);
  };
  return ordered(q.where((eb) => where(eb as unknown as ExpressionBuilder<Database, 'transactions'>)))
    .limit(limit)
    .offset(offset);
}

/**
 * An offset page as a deferred join: the page's ids first, from the list's index alone (the
 * migration 2026-11-24T06-00 puts every column the conditions read in it), then only those rows.
 * Reading each row skipped over cost a table read per row (7 s at offset 800,000).
 */
function deferredListQuery(
  db: Executor,
  businessId: string,
  filter: TransactionFilter,
  limit: number,
  offset: number,
  direction: 'asc' | 'desc',
) {
  const ids = ordered(
    db
      .selectFrom('transactions')
      .select('transactions.id')
      .where((eb) => filterCondition(db, eb, businessId, filter)),
    direction,
  )
    .limit(limit)
    .offset(offset);
  return ordered(withContact(db).where('transactions.id', 'in', ids), direction);
}

type ListArgs = { businessId: string; today: string; limit: number; offset: number } & Partial<
  Record<
    'contactId' | 'since' | 'dueFrom' | 'dueTo' | 'afterDue' | 'afterCreated' | 'afterId' | 'publicBaseUrl',
    string
  >
>;
/** The list statement per filter shape (the status, and which filters are given): at most 80 per selection. */
const listByShape = new Map<string, (db: Executor, args: ListArgs) => Promise<unknown[]>>();

/**
 * What a list reads for each due, other than the TransactionView (withContact): a select over
 * transactions joined to contacts (`withContact`'s join), whose values may use the stand-ins
 * `today` and `publicBaseUrl` (precompiled's `arg`). Named: the name keys the compiled statement.
 */
export interface ListSelection {
  name: string;
  select: (
    joined: SelectQueryBuilder<Database, 'transactions' | 'contacts', object>,
    db: Executor,
    arg: (name: 'today' | 'publicBaseUrl') => never,
  ) => SelectQueryBuilder<Database, 'transactions' | 'contacts', object>;
}

/**
 * A cursor page of the list (listTransactions' filters, order and index ranges) with other values
 * per due than the TransactionView (the bulk export's CSV lines, bulk/export-lines.ts).
 */
export function listTransactionsAs<R>(
  selection: ListSelection,
  db: Executor,
  businessId: string,
  filter: TransactionFilter,
  limit: number,
  after: ListPosition | undefined,
  publicBaseUrl: string,
): Promise<R[]> {
  if (filter.contactName !== undefined) throw new Error('listTransactionsAs: no fuzzy contact search');
  return listForShape(
    filter,
    after,
    false,
    selection,
  )(db, {
    ...listArgs(businessId, filter, limit, 0, after),
    publicBaseUrl,
  }) as Promise<R[]>;
}

function listForShape(
  filter: TransactionFilter,
  after: ListPosition | undefined,
  deferred: false | 'asc' | 'desc',
  selection?: ListSelection,
): (db: Executor, args: ListArgs) => Promise<TransactionView[]> {
  const given = (value: unknown, letter: string) => (value === undefined ? '' : letter);
  const shape = `${selection ? `${selection.name}/` : ''}${filter.status ?? ''}${filter.includeDeleted ? '+d' : ''}${filter.sinceMatchesMany ? '+m' : ''}${deferred ? `+o${deferred}` : ''}:${given(filter.contactId, 'c')}${given(filter.since, 's')}${given(filter.dueFrom, 'f')}${given(filter.dueTo, 't')}${given(after, 'a')}`;
  let query = listByShape.get(shape) as ((db: Executor, args: ListArgs) => Promise<TransactionView[]>) | undefined;
  if (!query) {
    query = precompiled<ListArgs, TransactionView>((db, arg) => {
      const stand = (value: unknown, name: 'contactId' | 'since' | 'dueFrom' | 'dueTo') =>
        value === undefined ? undefined : arg(name);
      const standIns: TransactionFilter = {
        status: filter.status,
        contactId: stand(filter.contactId, 'contactId'),
        since: stand(filter.since, 'since'),
        dueFrom: stand(filter.dueFrom, 'dueFrom'),
        dueTo: stand(filter.dueTo, 'dueTo'),
        sinceMatchesMany: filter.sinceMatchesMany,
        today: arg('today'),
        includeDeleted: filter.includeDeleted,
      };
      if (deferred) return deferredListQuery(db, arg('businessId'), standIns, arg('limit'), arg('offset'), deferred);
      const afterStandIn =
        after === undefined
          ? undefined
          : { due_date: arg('afterDue'), created_at: arg('afterCreated'), id: arg('afterId') };
      const from = selection
        ? (selection.select(
            db.selectFrom('transactions').innerJoin('contacts', 'contacts.id', 'transactions.contact_id'),
            db,
            arg,
          ) as unknown as ReturnType<typeof withContact>)
        : withContact(db);
      return listQuery(db, from, arg('businessId'), standIns, arg('limit'), arg('offset'), afterStandIn);
    });
    listByShape.set(shape, query);
  }
  return query;
}

/**
 * A page of the business's dues, newest due date first (on every list: compiled once per filter
 * shape): `offset` rows skipped, or those following `after` (a cursor).
 */
export function listTransactions(
  db: Executor,
  businessId: string,
  filter: TransactionFilter,
  limit: number,
  offset: number,
  after?: ListPosition,
): Promise<TransactionView[]> {
  if (filter.contactName !== undefined) {
    // The earlier shape's fuzzy search: as many terms as the query has words, built each time.
    const from = matchingDues(db, businessId, filter.contactName);
    return listQuery(db, withContact(db, from), businessId, filter, limit, offset, after).execute();
  }
  // A cursor page starts inside the index range: nothing to skip, so no deferred join.
  return listForShape(
    filter,
    after,
    after === undefined && offset > 0 ? 'desc' : false,
  )(db, listArgs(businessId, filter, limit, offset, after));
}

/**
 * The same page as listTransactions(limit, offset), read from the other end of the list: the
 * `fromEnd` rows after it are skipped in ascending order (the caller, which knows the total, asks
 * for this past the middle of the list, so a deep page skips the few rows behind it rather than
 * the many before). Newest first, like every page.
 */
export async function listTransactionsFromEnd(
  db: Executor,
  businessId: string,
  filter: TransactionFilter,
  limit: number,
  fromEnd: number,
): Promise<TransactionView[]> {
  const rows = await listForShape(filter, undefined, 'asc')(db, listArgs(businessId, filter, limit, fromEnd));
  return rows.reverse();
}

function listArgs(
  businessId: string,
  filter: TransactionFilter,
  limit: number,
  offset: number,
  after?: ListPosition,
): ListArgs {
  return {
    businessId,
    today: filter.today,
    limit,
    offset,
    ...(after !== undefined && { afterDue: after.due_date, afterCreated: after.created_at, afterId: after.id }),
    ...(filter.contactId !== undefined && { contactId: filter.contactId }),
    ...(filter.since !== undefined && { since: filter.since }),
    ...(filter.dueFrom !== undefined && { dueFrom: filter.dueFrom }),
    ...(filter.dueTo !== undefined && { dueTo: filter.dueTo }),
  };
}

export async function countTransactions(db: Executor, businessId: string, filter: TransactionFilter): Promise<number> {
  const from =
    filter.contactName === undefined ? db.selectFrom('transactions') : matchingDues(db, businessId, filter.contactName);
  const row = await from
    .where((eb) => filterCondition(db, eb, businessId, filter))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Whether at least `n` of the business's dues (deleted ones too) changed at or after `since`: a
 * probe of at most `n` entries of the updated_at index, which tells the list which way to go.
 */
export async function updatedSinceAtLeast(db: Executor, businessId: string, since: string, n: number) {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('transactions')
        .select(sql<number>`1`.as('one'))
        .where('business_id', '=', businessId)
        .where('updated_at', '>=', since)
        .limit(n)
        .as('probe'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n) >= n;
}

/**
 * How many dues, not deleted, of `open` (1 open, 0 paid, undefined both) last changed before
 * `since`: from the updated_at index alone. An incremental sync that matches most dues counts
 * the ones it does not match instead (the total less these).
 */
export async function countUpdatedBefore(db: Executor, businessId: string, since: string, open: 0 | 1 | undefined) {
  const row = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', businessId)
    .where('updated_at', '<', since)
    .where('open', open === undefined ? '>=' : '=', open ?? 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Pending days that have passed somewhere in the world (`latestToday` is the furthest-ahead zone's date). */
export function pendingDaysBefore(db: Executor, latestToday: string, limit: number) {
  return (
    db
      .selectFrom('pending_by_day')
      .innerJoin('businesses', 'businesses.id', 'pending_by_day.business_id')
      .select(['pending_by_day.business_id', 'pending_by_day.due_date', 'businesses.timezone'])
      // A day has a row per shard on PostgreSQL (totals/aggregates.ts): once each.
      .distinct()
      .where('pending_by_day.due_date', '<', latestToday)
      .orderBy('pending_by_day.due_date')
      .limit(limit)
      .execute()
  );
}

/** Moves up to `limit` stored-pending dues of one business and day to overdue; returns their amounts. */
export async function markOverdueBatch(db: Executor, businessId: string, dueDate: string, at: string, limit: number) {
  const ids = await db
    .selectFrom('transactions')
    .select('id')
    .where('business_id', '=', businessId)
    .where('open', '=', 1)
    .where('due_date', '=', dueDate)
    .where('status', '=', 'pending')
    .limit(limit)
    .execute();
  if (ids.length === 0) return [];
  return db
    .updateTable('transactions')
    .set({ status: 'overdue', updated_at: updatedAtAfter(db, at) })
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    )
    .where('status', '=', 'pending')
    .returning(['id', 'amount_paise', 'amount_paid_paise', 'amount_adjusted_paise'])
    .execute();
}

export function insertPayment(db: Executor, row: PaymentTable) {
  return insertRows(db, 'payments', [row]);
}

/** A due's payments, oldest first. */
export function listPayments(db: Executor, businessId: string, transactionId: string) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('transaction_id', '=', transactionId)
    .where('reversed_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The first due of a series (deleted or not): its date is the series' day of the month. */
export function findSeriesStart(db: Executor, seriesId: string) {
  return db.selectFrom('transactions').select(['due_date']).where('id', '=', seriesId).executeTakeFirst();
}

/** Whether a due of the series already has this date (a PATCH may have moved one there). */
export async function seriesHasDate(db: Executor, seriesId: string, dueDate: string): Promise<boolean> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('series_id', '=', seriesId)
    .where('due_date', '=', dueDate)
    .executeTakeFirst();
  return row !== undefined;
}

/** Dues whose series has a next due to create and whose date has arrived somewhere (`latestToday`). */
export function duesToRepeat(db: Executor, latestToday: string, limit: number) {
  return db
    .selectFrom('transactions')
    .innerJoin('businesses', 'businesses.id', 'transactions.business_id')
    .select(['transactions.id', 'transactions.business_id', 'transactions.due_date', 'businesses.timezone'])
    .where('transactions.recurs_next', '=', 1)
    .where('transactions.due_date', '<=', latestToday)
    .orderBy('transactions.due_date')
    .limit(limit)
    .execute();
}

/** Takes the job of creating a due's next: true for exactly one caller, whatever the number of workers. */
export async function claimRepeat(db: Executor, id: string): Promise<boolean> {
  const row = await db
    .updateTable('transactions')
    .set({ recurs_next: 0 })
    .where('id', '=', id)
    .where('recurs_next', '=', 1)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A contact's open dues, oldest first (due date, then creation): the order a receipt settles them
 * in. `after` is the last due of the previous page.
 */
function openDuesOfContact(
  db: Executor,
  businessId: string,
  contactId: string,
  after?: Pick<StoredTransaction, 'due_date' | 'created_at' | 'id'>,
) {
  // The business is checked on the contact (a due is its contact's business's): offered the dues'
  // business_id and a bound `open`, SQLite walked the business's open dues (transactions_business_open_due)
  // looking for the contact's, instead of the contact's own partial index (open = 1, as written).
  return withContact(db)
    .where('contacts.business_id', '=', businessId)
    .where('transactions.contact_id', '=', contactId)
    .where('transactions.open', '=', sql.lit(1))
    .$if(after !== undefined, (q) => {
      const a = after as Pick<StoredTransaction, 'due_date' | 'created_at' | 'id'>;
      return q.where((eb) =>
        eb(
          eb.refTuple('transactions.due_date', 'transactions.created_at', 'transactions.id'),
          '>',
          eb.tuple(a.due_date, a.created_at, a.id),
        ),
      );
    })
    .orderBy('transactions.due_date')
    .orderBy('transactions.created_at')
    .orderBy('transactions.id');
}

/** A page of a contact's open dues, oldest first (openDuesOfContact), locked on PostgreSQL. */
export function lockOpenDuesOfContact(
  db: Executor,
  businessId: string,
  contactId: string,
  limit: number,
  after?: Pick<StoredTransaction, 'due_date' | 'created_at' | 'id'>,
): Promise<TransactionView[]> {
  return openDuesOfContact(db, businessId, contactId, after)
    .limit(limit)
    .$call(lockedRows(db, { of: 'transactions' }))
    .execute();
}

/** A contact's oldest open due (openDuesOfContact), read without a lock. */
export function oldestOpenDueOfContact(
  db: Executor,
  businessId: string,
  contactId: string,
): Promise<TransactionView | undefined> {
  return openDuesOfContact(db, businessId, contactId).limit(1).executeTakeFirst();
}

/**
 * Some dues of the business by id (deleted ones too), locked on PostgreSQL, in id order (one lock
 * order). The caller holds their contact's lock already (account.ts: the contact, then its dues).
 */
export function lockTransactions(db: Executor, businessId: string, ids: readonly string[]): Promise<TransactionView[]> {
  if (ids.length === 0) return Promise.resolve([]);
  // By id: offered business_id, SQLite walked the business's dues (an index on it) to sort by id.
  return withContact(db)
    .where(offIndex(db, 'transactions.business_id'), '=', businessId)
    .where('transactions.id', 'in', ids)
    .orderBy('transactions.id')
    .$call(lockedRows(db, { of: 'transactions' }))
    .execute();
}

/** The columns a payment changes on a due (payments.ts applyToDue). */
const PAID_COLUMNS = ['amount_paid_paise', 'updated_at', 'status', 'open', 'paid_at', 'utr', 'payment_method'] as const;
export type PaidColumns = Pick<StoredTransaction, 'id' | (typeof PAID_COLUMNS)[number]>;

/** Dues written per UPDATE by updatePaidColumns. */
const PAID_PER_UPDATE = 100;

/**
 * Several dues' payment columns written at once (a batch of receipts, transactions/receipt-batch.ts):
 * one UPDATE per 100 dues, each column a CASE over their ids (the column itself otherwise, which
 * also gives PostgreSQL the column's type for the values).
 */
export async function updatePaidColumns(db: Executor, businessId: string, rows: readonly PaidColumns[]) {
  for (let i = 0; i < rows.length; i += PAID_PER_UPDATE) {
    const slice = rows.slice(i, i + PAID_PER_UPDATE);
    const column = (name: (typeof PAID_COLUMNS)[number]) =>
      sql<never>`case ${sql.join(
        slice.map((r) => sql`when id = ${r.id} then ${r[name]}`),
        sql` `,
      )} else ${sql.ref(name)} end`;
    await db
      .updateTable('transactions')
      .set({
        amount_paid_paise: column('amount_paid_paise'),
        updated_at: column('updated_at'),
        status: column('status'),
        open: column('open'),
        paid_at: column('paid_at'),
        utr: column('utr'),
        payment_method: column('payment_method'),
      })
      // By id (the primary key): offered business_id, SQLite walked the business's dues.
      .where(offIndex(db, 'business_id'), '=', businessId)
      .where(
        'id',
        'in',
        slice.map((r) => r.id),
      )
      .execute();
  }
}
