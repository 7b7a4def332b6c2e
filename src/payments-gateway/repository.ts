import { sql } from 'kysely';
import type { AccountPaymentLinkTable, Executor, GatewayPaymentTable, PaymentLinkTable } from '../db/schema.js';

/** A due's links still open at the gateway, newest first. */
export function openLinks(db: Executor, transactionId: string) {
  return db
    .selectFrom('payment_links')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('status', '=', 'created')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The link this service created with that gateway id for that due, if it did. */
export function findLinkOfDue(db: Executor, gatewayLinkId: string, transactionId: string) {
  return db
    .selectFrom('payment_links')
    .select(['amount_paise', 'status'])
    .where('gateway_link_id', '=', gatewayLinkId)
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
}

export function insertLink(db: Executor, row: PaymentLinkTable) {
  return db.insertInto('payment_links').values(row).execute();
}

/**
 * A link's next state. From `created` or `stale` (open at the gateway): paid, cancelled, or
 * `refused` (the gateway would not cancel it: already paid, cancelled or expired there).
 */
export function setLinkStatus(db: Executor, gatewayLinkId: string, status: 'cancelled' | 'paid' | 'refused') {
  return db
    .updateTable('payment_links')
    .set({ status })
    .where('gateway_link_id', '=', gatewayLinkId)
    .where('status', 'in', ['created', 'stale'])
    .execute();
}

/**
 * Links still open at the gateway whose due was settled or deleted (marked `stale` by a trigger in
 * that same transaction: migration 2026-11-25T05-00), oldest first, through a partial index.
 */
export function staleLinks(db: Executor, limit: number) {
  return db
    .selectFrom('payment_links')
    .select(['gateway_link_id', 'business_id', 'transaction_id'])
    .where('status', '=', 'stale')
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** What a link needs to name its payer: the contact's name and phone. */
export function contactOfDue(db: Executor, transactionId: string) {
  return db
    .selectFrom('transactions')
    .innerJoin('contacts', 'contacts.id', 'transactions.contact_id')
    .select(['contacts.name', 'contacts.phone'])
    .where('transactions.id', '=', transactionId)
    .executeTakeFirst();
}

/** A contact's phone, for the link to name its payer. */
export function contactPhone(db: Executor, contactId: string) {
  return db.selectFrom('contacts').select(['phone']).where('id', '=', contactId).executeTakeFirst();
}

/** The business a due belongs to, whatever its state (the gateway only knows the due's id). */
export function businessOfDue(db: Executor, transactionId: string) {
  return db
    .selectFrom('transactions')
    .innerJoin('businesses', 'businesses.id', 'transactions.business_id')
    .selectAll('businesses')
    .where('transactions.id', '=', transactionId)
    .executeTakeFirst();
}

/**
 * Claims a gateway payment id; undefined when it was claimed before. The primary key makes this
 * the de-duplication: a second insert of the same id (another process, at the same moment) waits
 * for the first to commit and then inserts nothing.
 */
export function claimGatewayPayment(db: Executor, row: GatewayPaymentTable) {
  return db
    .insertInto('gateway_payments')
    .values(row)
    .onConflict((oc) => oc.column('gateway_payment_id').doNothing())
    .returning('gateway_payment_id')
    .executeTakeFirst();
}

export function settleGatewayPayment(
  db: Executor,
  gatewayPaymentId: string,
  change: Pick<GatewayPaymentTable, 'payment_id' | 'unapplied_paise' | 'unapplied_reason'>,
) {
  return db.updateTable('gateway_payments').set(change).where('gateway_payment_id', '=', gatewayPaymentId).execute();
}

/**
 * `unapplied_paise > 0` as written, not bound: a plan made for any value of a bound one (PostgreSQL's
 * generic plan of a prepared statement) cannot use the partial index of unapplied payments.
 */
const unapplied = sql<boolean>`unapplied_paise > 0`;

/** Money the business received that no due took, newest first: a page of the unapplied payments' index. */
export function listUnapplied(db: Executor, businessId: string, limit: number, offset: number) {
  return db
    .selectFrom('gateway_payments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where(unapplied)
    .orderBy('created_at', 'desc')
    .orderBy('gateway_payment_id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countUnapplied(db: Executor, businessId: string): Promise<number> {
  const row = await db
    .selectFrom('gateway_payments')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('business_id', '=', businessId)
    .where(unapplied)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A contact's account links still open at the gateway, newest first (a partial index: few rows). */
export function openAccountLinks(db: Executor, contactId: string) {
  return db
    .selectFrom('account_payment_links')
    .selectAll()
    .where('contact_id', '=', contactId)
    .where('status', '=', 'created')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function insertAccountLink(db: Executor, row: AccountPaymentLinkTable) {
  return db.insertInto('account_payment_links').values(row).execute();
}

/** An account link by its row id (the reference the gateway hands back), with its business. */
export function findAccountLink(db: Executor, id: string) {
  return db
    .selectFrom('account_payment_links')
    .innerJoin('businesses', 'businesses.id', 'account_payment_links.business_id')
    .selectAll('businesses')
    .select([
      'account_payment_links.contact_id',
      'account_payment_links.gateway_link_id',
      'account_payment_links.amount_paise as link_amount_paise',
    ])
    .where('account_payment_links.id', '=', id)
    .executeTakeFirst();
}

/** An account link's next state, from `created` (open at the gateway): paid or cancelled. */
export function setAccountLinkStatus(db: Executor, gatewayLinkId: string, status: 'cancelled' | 'paid') {
  return db
    .updateTable('account_payment_links')
    .set({ status })
    .where('gateway_link_id', '=', gatewayLinkId)
    .where('status', '=', 'created')
    .execute();
}
