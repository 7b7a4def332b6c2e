import type { Executor } from '../db/schema.js';

/**
 * What a statement reads (statement.ts statementReads), by the contact's indexes: the sum of its
 * kept months on one side of the period's month (O(months)), then each kind of entry between two
 * bounds (O(entries in the period and in at most half a month beside it)). `since`/`until` are instants (ISO),
 * `sinceDate`/`toDate` business-local dates; `until` is excluded. Deleted dues are left out (they
 * have no payments nor adjustments, so they leave the account whole).
 *
 * The buyer's page reads instead each kind's newest `limit` entries, whatever their dates, newest
 * first in the statement's order (statement.ts `compare`: date, then time, then id), by the same
 * indexes read backwards from their end: O(limit), however long the history. A due's, an
 * adjustment's and a reversal's business-local date follows its instant, so the instant orders them.
 */
export async function keptMonths(
  db: Executor,
  contactId: string,
  months: { side: 'before' | 'through'; month: string },
): Promise<number> {
  const row = await db
    .selectFrom('contact_ledger_months')
    .select((eb) => eb.fn.sum<number | string | null>('paise').as('paise'))
    .where('contact_id', '=', contactId)
    .where('month', months.side === 'before' ? '<' : '<=', months.month)
    .executeTakeFirst();
  return Number(row?.paise ?? 0);
}

/** What each kind of entry reads, for a period or for the newest entries alike. */
const DUE = ['id', 'amount_paise', 'due_date', 'invoice_number', 'created_at'] as const;
const RECEIPT = ['id', 'amount_paise', 'utr', 'payment_method', 'received_on', 'created_at', 'reversed_at'] as const;
const REVERSAL = ['id', 'amount_paise', 'reversed_at', 'reversal_reason'] as const;
const ADJUSTMENT = ['id', 'transaction_id', 'kind', 'amount_paise', 'reason', 'created_at'] as const;

export function duesBetween(db: Executor, contactId: string, since: string, until: string) {
  return db
    .selectFrom('transactions')
    .select(DUE)
    .where('contact_id', '=', contactId)
    .where('created_at', '>=', since)
    .where('created_at', '<', until)
    .where('deleted_at', 'is', null)
    .execute();
}

export function receiptsReceivedBetween(db: Executor, contactId: string, sinceDate: string, toDate: string) {
  return db
    .selectFrom('receipts')
    .select(RECEIPT)
    .where('contact_id', '=', contactId)
    .where('received_on', '>=', sinceDate)
    .where('received_on', '<=', toDate)
    .execute();
}

export function reversalsBetween(db: Executor, contactId: string, since: string, until: string) {
  return db
    .selectFrom('receipts')
    .select(REVERSAL)
    .where('contact_id', '=', contactId)
    .where('reversed_at', '>=', since)
    .where('reversed_at', '<', until)
    .execute();
}

export function adjustmentsBetween(db: Executor, contactId: string, since: string, until: string) {
  return db
    .selectFrom('adjustments')
    .select(ADJUSTMENT)
    .where('contact_id', '=', contactId)
    .where('created_at', '>=', since)
    .where('created_at', '<', until)
    .execute();
}

export type DueEntryRow = Awaited<ReturnType<typeof duesBetween>>[number];
export type ReceiptEntryRow = Awaited<ReturnType<typeof receiptsReceivedBetween>>[number];
export type ReversalEntryRow = Awaited<ReturnType<typeof reversalsBetween>>[number];
export type AdjustmentEntryRow = Awaited<ReturnType<typeof adjustmentsBetween>>[number];

export function newestDues(db: Executor, contactId: string, limit: number) {
  return db
    .selectFrom('transactions')
    .select(DUE)
    .where('contact_id', '=', contactId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function newestReceipts(db: Executor, contactId: string, limit: number) {
  return db
    .selectFrom('receipts')
    .select(RECEIPT)
    .where('contact_id', '=', contactId)
    .orderBy('received_on', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function newestReversals(db: Executor, contactId: string, limit: number) {
  return db
    .selectFrom('receipts')
    .select(REVERSAL)
    .where('contact_id', '=', contactId)
    .where('reversed_at', 'is not', null)
    .orderBy('reversed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function newestAdjustments(db: Executor, contactId: string, limit: number) {
  return db
    .selectFrom('adjustments')
    .select(ADJUSTMENT)
    .where('contact_id', '=', contactId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The contact's open dues by due date (contact_open_days, kept): the statement's aging reads the
 * days its open dues fall on, not its dues.
 */
export function openDaysOf(db: Executor, contactId: string) {
  return db
    .selectFrom('contact_open_days')
    .select(['day', 'due_count', 'balance_paise'])
    .where('contact_id', '=', contactId)
    .where('due_count', '>', 0)
    .execute();
}
