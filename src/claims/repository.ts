import { sql } from 'kysely';
import { recordAudit } from '../audit/record.js';
import { offIndex } from '../db/port.js';
import type { Executor, PaymentClaimTable } from '../db/schema.js';
import { claimEntry } from '../transactions/audit.js';

/** What a claim is for: one due (the pay page) or a contact's whole account (the account page). */
export type ClaimOwner = { transactionId: string } | { contactId: string };

function ownerColumn(owner: ClaimOwner): ['transaction_id' | 'contact_id', string] {
  return 'transactionId' in owner ? ['transaction_id', owner.transactionId] : ['contact_id', owner.contactId];
}

/** A due's or an account's claims, oldest first. */
export function listClaims(db: Executor, businessId: string, owner: ClaimOwner) {
  const [column, id] = ownerColumn(owner);
  return db
    .selectFrom('payment_claims')
    .selectAll()
    .where('business_id', '=', businessId)
    .where(column, '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findClaim(db: Executor, businessId: string, owner: ClaimOwner, claimId: string) {
  const [column, id] = ownerColumn(owner);
  return db
    .selectFrom('payment_claims')
    .selectAll()
    .where('business_id', '=', businessId)
    .where(column, '=', id)
    .where('id', '=', claimId)
    .executeTakeFirst();
}

export function insertClaim(db: Executor, row: PaymentClaimTable) {
  return db.insertInto('payment_claims').values(row).execute();
}

/** Decides a pending claim; undefined when it was decided already (perhaps just now, concurrently). */
/**
 * Decides a pending claim in the caller's transaction, with its audit entry (status and decided_at,
 * before and after); undefined, and nothing written, when it was decided already. Every decision
 * comes here (the business's confirm and reject, an account claim's receipt, a bank credit naming
 * the claim), so every one is audited.
 */
export async function decideClaim(db: Executor, claimId: string, status: 'confirmed' | 'rejected', at: string) {
  const decided = await db
    .updateTable('payment_claims')
    .set({ status, decided_at: at })
    .where('id', '=', claimId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
  if (decided) {
    await recordAudit(db, decided.business_id, at, [
      claimEntry(status, { id: claimId, status: 'pending', decided_at: null }, decided),
    ]);
  }
  return decided;
}

/**
 * The business's pending claims, newest first, with whom they are from: a due's claims while the
 * due is open (with what the due is), and account claims (with the amount the buyer entered). Read
 * by the (business, status, created_at) index, one contact and at most one due per row.
 */
export function listPendingClaims(db: Executor, businessId: string, limit: number, offset: number) {
  return db
    .selectFrom('payment_claims')
    .leftJoin('transactions', 'transactions.id', 'payment_claims.transaction_id')
    .innerJoin('contacts', (join) =>
      join.on(sql<boolean>`contacts.id = coalesce(payment_claims.contact_id, transactions.contact_id)`),
    )
    .select([
      'payment_claims.id',
      'payment_claims.business_id',
      'payment_claims.transaction_id',
      'payment_claims.contact_id',
      'payment_claims.reference',
      'payment_claims.created_at',
      'payment_claims.status',
      'payment_claims.decided_at',
      'payment_claims.amount_paise as claimed_paise',
      'contacts.id as owner_contact_id',
      'contacts.name as contact_name',
      'transactions.amount_paise',
      'transactions.amount_paid_paise',
      'transactions.amount_adjusted_paise',
      'transactions.due_date',
      'transactions.invoice_number',
    ])
    .where('payment_claims.business_id', '=', businessId)
    .where('payment_claims.status', '=', 'pending')
    .where((eb) => eb.or([eb('payment_claims.contact_id', 'is not', null), eb('transactions.open', '=', 1)]))
    .orderBy('payment_claims.created_at', 'desc')
    .orderBy('payment_claims.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** A contact's account claims still waiting for a decision, oldest first (the buyer's page). */
/**
 * A contact's account claims waiting for a decision, oldest first: by the contact's claims index.
 * The business and status are kept off the index: SQLite (no statistics) otherwise read every
 * pending claim of the business for one buyer's page.
 */
export function listPendingAccountClaims(db: Executor, businessId: string, contactId: string, limit: number) {
  return db
    .selectFrom('payment_claims')
    .selectAll()
    .where(offIndex(db, 'business_id'), '=', businessId)
    .where('contact_id', '=', contactId)
    .where(offIndex(db, 'status'), '=', 'pending')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export type ClaimRow = PaymentClaimTable;
