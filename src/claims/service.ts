import type { BusinessRow } from '../businesses/repository.js';
import type { Db, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { balanceOf } from '../transactions/domain.js';
import { type RecordedPayment, recordPaymentIn } from '../transactions/payments.js';
import * as transactionsRepo from '../transactions/repository.js';
import * as repo from './repository.js';

/**
 * The due (locked, as every payment locks it first: claims of one due are decided one at a time)
 * and its claim, which must still be pending.
 */
async function pendingClaim(trx: Trx, business: BusinessRow, transactionId: string, claimId: string) {
  const due = await transactionsRepo.lockTransaction(trx, business.id, transactionId);
  if (!due || due.deleted_at !== null) throw errors.notFound('transaction');
  const claim = await repo.findClaim(trx, business.id, transactionId, claimId);
  if (!claim) throw errors.notFound('claim');
  if (claim.status !== 'pending') throw errors.conflict(`claim is already ${claim.status}`);
  return { due, claim };
}

/**
 * "I have paid" claims, decided by the business (PRODUCT part 11). Confirming one records a
 * payment (source claim, method upi, utr = the claim's reference) in the same database
 * transaction as the decision, so a claim is confirmed exactly when its payment exists.
 * The earlier shape's claimCount still counts claims made, whatever became of them.
 */
export class ClaimService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** A due's claims, oldest first; an unknown, deleted or another business's due: 404. */
  async list(business: BusinessRow, transactionId: string) {
    const due = await transactionsRepo.findTransaction(this.deps.db, business.id, transactionId);
    if (!due || due.deleted_at !== null) throw errors.notFound('transaction');
    return repo.listClaims(this.deps.db, business.id, transactionId);
  }

  /**
   * Claims waiting for the business across its open dues, newest first, each with its due's
   * contact, balance and date (for the dashboard). Claims on dues settled since are left out.
   */
  async listPending(business: BusinessRow, page: { limit: number; offset: number }) {
    const rows = await repo.listPendingClaims(this.deps.db, business.id, page.limit, page.offset);
    return rows.map((r) => ({
      claim: r as repo.ClaimRow,
      transactionId: r.transaction_id,
      contactName: r.contact_name,
      balancePaise: balanceOf(r),
      dueDate: r.due_date,
      invoiceNumber: r.invoice_number,
    }));
  }

  async confirm(
    business: BusinessRow,
    transactionId: string,
    claimId: string,
    input: { amount_paise?: number | undefined },
  ): Promise<{ claim: repo.ClaimRow } & RecordedPayment> {
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      const { due, claim } = await pendingClaim(trx, business, transactionId, claimId);
      if (due.status === 'paid') throw errors.conflict('transaction is already paid');
      const decided = await repo.decideClaim(trx, claimId, 'confirmed', now.toISOString());
      if (!decided) throw errors.conflict('claim is already decided');
      const recorded = await recordPaymentIn(
        trx,
        business,
        transactionId,
        {
          amountPaise: input.amount_paise ?? balanceOf(due),
          utr: claim.reference,
          paymentMethod: 'upi',
          source: 'claim',
        },
        now,
      );
      return { claim: decided, ...recorded };
    });
  }

  async reject(business: BusinessRow, transactionId: string, claimId: string): Promise<repo.ClaimRow> {
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      await pendingClaim(trx, business, transactionId, claimId);
      const decided = await repo.decideClaim(trx, claimId, 'rejected', now.toISOString());
      if (!decided) throw errors.conflict('claim is already decided');
      return decided;
    });
  }
}
