import type { Executor } from '../db/schema.js';
import { updatedAtAfter } from '../db/updated-at.js';

/** Everything the pay page shows, in one indexed lookup by token (transactions.pay_token is unique). */
export function findPayPageByToken(db: Executor, token: string) {
  return db
    .selectFrom('transactions')
    .innerJoin('contacts', 'contacts.id', 'transactions.contact_id')
    .innerJoin('businesses', 'businesses.id', 'transactions.business_id')
    .select([
      'transactions.id',
      'transactions.business_id',
      'transactions.amount_paise',
      'transactions.amount_paid_paise',
      'transactions.amount_adjusted_paise',
      'transactions.deleted_at',
      'transactions.currency',
      'transactions.status',
      'transactions.due_date',
      'transactions.paid_at',
      'transactions.invoice_number',
      'transactions.payment_reference',
      'transactions.claim_count',
      'contacts.name as contact_name',
      'contacts.language as contact_language',
      'businesses.language as business_language',
      'businesses.name as business_name',
      'businesses.upi_id',
      'businesses.timezone',
      'businesses.country',
    ])
    .where('transactions.pay_token', '=', token)
    .executeTakeFirst();
}

export type PayPageRow = NonNullable<Awaited<ReturnType<typeof findPayPageByToken>>>;

/** The payments the buyer sees on the page, oldest first (no references: those are the business's). */
export function paymentsOf(db: Executor, transactionId: string) {
  return db
    .selectFrom('payments')
    .select(['amount_paise', 'created_at'])
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function latestClaim(db: Executor, transactionId: string) {
  return db
    .selectFrom('payment_claims')
    .select(['reference', 'created_at'])
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Counts one claim on a due that is still open; undefined when it is paid (possibly just now, by a
 * concurrent mark-paid), in which case no claim row may be written.
 */
export function countClaimIfOpen(db: Executor, transactionId: string, at: string) {
  return db
    .updateTable('transactions')
    .set((eb) => ({ claim_count: eb('claim_count', '+', 1), updated_at: updatedAtAfter(db, at) }))
    .where('id', '=', transactionId)
    .where('open', '=', 1)
    .returning('claim_count')
    .executeTakeFirst();
}
