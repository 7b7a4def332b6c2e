import type { Executor, PaymentClaimTable } from '../db/schema.js';

/** A due's claims, oldest first. */
export function listClaims(db: Executor, businessId: string, transactionId: string) {
  return db
    .selectFrom('payment_claims')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findClaim(db: Executor, businessId: string, transactionId: string, claimId: string) {
  return db
    .selectFrom('payment_claims')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('transaction_id', '=', transactionId)
    .where('id', '=', claimId)
    .executeTakeFirst();
}

/** Decides a pending claim; undefined when it was decided already (perhaps just now, concurrently). */
export function decideClaim(db: Executor, claimId: string, status: 'confirmed' | 'rejected', at: string) {
  return db
    .updateTable('payment_claims')
    .set({ status, decided_at: at })
    .where('id', '=', claimId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

export type ClaimRow = PaymentClaimTable;
