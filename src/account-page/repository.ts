import type { Executor } from '../db/schema.js';

/** The account behind a token, with its business, in one indexed lookup (contacts.account_token is unique). */
export function findAccountByToken(db: Executor, token: string) {
  return db
    .selectFrom('contacts')
    .innerJoin('businesses', 'businesses.id', 'contacts.business_id')
    .select([
      'contacts.id',
      'contacts.business_id',
      'contacts.name as contact_name',
      'contacts.balance_paise',
      'contacts.credit_paise',
      'contacts.payment_reference',
      'contacts.language',
      'businesses.name as business_name',
      'businesses.language as business_language',
      'businesses.currency',
      'businesses.country',
      'businesses.timezone',
      'businesses.upi_id',
    ])
    .where('contacts.account_token', '=', token)
    .executeTakeFirst();
}

export type AccountRow = NonNullable<Awaited<ReturnType<typeof findAccountByToken>>>;

/** The token of the account a merged buyer's token leads to now (merged_contacts), if it was one. */
export async function forwardedToken(db: Executor, token: string): Promise<string | null> {
  const row = await db
    .selectFrom('merged_contacts')
    .innerJoin('contacts', 'contacts.id', 'merged_contacts.kept_id')
    .select('contacts.account_token')
    .where('merged_contacts.account_token', '=', token)
    .executeTakeFirst();
  return row?.account_token ?? null;
}

/** The contact's open dues, oldest first (the order a receipt pays them in), at most `limit`. */
export function openDues(db: Executor, businessId: string, contactId: string, limit: number) {
  return db
    .selectFrom('transactions')
    .select([
      'id',
      'amount_paise',
      'amount_paid_paise',
      'amount_adjusted_paise',
      'due_date',
      'status',
      'invoice_number',
      'currency',
    ])
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .where('open', '=', 1)
    .orderBy('due_date')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The contact's latest receipts, newest first: what the buyer paid (no references: those are the business's). */
export function latestReceipts(db: Executor, businessId: string, contactId: string, limit: number) {
  return db
    .selectFrom('receipts')
    .select(['amount_paise', 'received_on', 'reversed_at'])
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The account's latest claim still waiting for the business. */
export function latestPendingClaim(db: Executor, contactId: string) {
  return db
    .selectFrom('payment_claims')
    .select(['amount_paise', 'reference', 'created_at'])
    .where('contact_id', '=', contactId)
    .where('status', '=', 'pending')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
