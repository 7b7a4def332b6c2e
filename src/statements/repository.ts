import type { Executor } from '../db/schema.js';

/**
 * What a statement reads, each from `fromInstant` (or `fromDate`) on, by the contact's indexes:
 * O(entries since the period's start). Deleted dues are left out (they have no payments nor
 * adjustments, so they leave the account whole).
 */
export function duesSince(db: Executor, contactId: string, fromInstant: string) {
  return db
    .selectFrom('transactions')
    .select(['id', 'amount_paise', 'due_date', 'invoice_number', 'created_at'])
    .where('contact_id', '=', contactId)
    .where('created_at', '>=', fromInstant)
    .where('deleted_at', 'is', null)
    .execute();
}

export function receiptsReceivedSince(db: Executor, contactId: string, fromDate: string) {
  return db
    .selectFrom('receipts')
    .select(['id', 'amount_paise', 'utr', 'payment_method', 'received_on', 'created_at', 'reversed_at'])
    .where('contact_id', '=', contactId)
    .where('received_on', '>=', fromDate)
    .execute();
}

export function reversalsSince(db: Executor, contactId: string, fromInstant: string) {
  return db
    .selectFrom('receipts')
    .select(['id', 'amount_paise', 'reversed_at', 'reversal_reason'])
    .where('contact_id', '=', contactId)
    .where('reversed_at', '>=', fromInstant)
    .execute();
}

export function adjustmentsSince(db: Executor, contactId: string, fromInstant: string) {
  return db
    .selectFrom('adjustments')
    .select(['id', 'transaction_id', 'kind', 'amount_paise', 'reason', 'created_at'])
    .where('contact_id', '=', contactId)
    .where('created_at', '>=', fromInstant)
    .execute();
}

/** The contact's open dues (the partial index on open dues): the statement's aging. */
export function openDuesOf(db: Executor, contactId: string) {
  return db
    .selectFrom('transactions')
    .select(['due_date', 'amount_paise', 'amount_paid_paise', 'amount_adjusted_paise'])
    .where('contact_id', '=', contactId)
    .where('open', '=', 1)
    .execute();
}
