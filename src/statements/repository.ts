import type { Executor } from '../db/schema.js';

/**
 * What a statement reads (statement.ts statementReads), by the contact's indexes: the sum of its
 * kept months on one side of the period's month (O(months)), then each kind of entry between two
 * bounds (O(entries in the period and in at most half a month beside it)). `since`/`until` are instants (ISO),
 * `sinceDate`/`toDate` business-local dates; `until` is excluded. Deleted dues are left out (they
 * have no payments nor adjustments, so they leave the account whole).
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

export function duesBetween(db: Executor, contactId: string, since: string, until: string) {
  return db
    .selectFrom('transactions')
    .select(['id', 'amount_paise', 'due_date', 'invoice_number', 'created_at'])
    .where('contact_id', '=', contactId)
    .where('created_at', '>=', since)
    .where('created_at', '<', until)
    .where('deleted_at', 'is', null)
    .execute();
}

export function receiptsReceivedBetween(db: Executor, contactId: string, sinceDate: string, toDate: string) {
  return db
    .selectFrom('receipts')
    .select(['id', 'amount_paise', 'utr', 'payment_method', 'received_on', 'created_at', 'reversed_at'])
    .where('contact_id', '=', contactId)
    .where('received_on', '>=', sinceDate)
    .where('received_on', '<=', toDate)
    .execute();
}

export function reversalsBetween(db: Executor, contactId: string, since: string, until: string) {
  return db
    .selectFrom('receipts')
    .select(['id', 'amount_paise', 'reversed_at', 'reversal_reason'])
    .where('contact_id', '=', contactId)
    .where('reversed_at', '>=', since)
    .where('reversed_at', '<', until)
    .execute();
}

export function adjustmentsBetween(db: Executor, contactId: string, since: string, until: string) {
  return db
    .selectFrom('adjustments')
    .select(['id', 'transaction_id', 'kind', 'amount_paise', 'reason', 'created_at'])
    .where('contact_id', '=', contactId)
    .where('created_at', '>=', since)
    .where('created_at', '<', until)
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
