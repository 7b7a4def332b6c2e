import type { BusinessRow } from '../businesses/repository.js';
import { type ContactRow, findContact } from '../contacts/repository.js';
import type { ContactService, ContactStanding } from '../contacts/service.js';
import type { Db, Executor, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { balanceOf } from '../transactions/domain.js';
import { type RecordedPayment, recordPaymentIn } from '../transactions/payments.js';
import { lockContact } from '../transactions/receipt-repository.js';
import * as transactionsRepo from '../transactions/repository.js';
import { type ConfirmedAccountClaim, confirmAccountClaimIn } from './account.js';
import * as repo from './repository.js';

/**
 * What the claim is for, locked (a due as every payment locks it first, a contact as every receipt
 * does: claims of one due or one account are decided one at a time); an unknown, deleted or
 * another business's due or contact: 404.
 */
async function lockOwner(trx: Executor, business: BusinessRow, owner: repo.ClaimOwner) {
  if ('transactionId' in owner) {
    const due = await transactionsRepo.lockTransaction(trx, business.id, owner.transactionId);
    if (!due || due.deleted_at !== null) throw errors.notFound('transaction');
    return { due };
  }
  const contact = await lockContact(trx, business.id, owner.contactId);
  if (!contact) throw errors.notFound('contact');
  return { contact };
}

/** The owner, locked, and its claim, which must still be pending. */
async function pendingClaim(trx: Trx, business: BusinessRow, owner: repo.ClaimOwner, claimId: string) {
  const locked = await lockOwner(trx, business, owner);
  const claim = await repo.findClaim(trx, business.id, owner, claimId);
  if (!claim) throw errors.notFound('claim');
  if (claim.status !== 'pending') throw errors.conflict(`claim is already ${claim.status}`);
  return { ...locked, claim };
}

/** A claim waiting for the business: on one due (the pay page) or on a buyer's whole account. */
export type PendingClaim = { claim: repo.ClaimRow; contactId: string; contactName: string } & (
  | {
      kind: 'due';
      transactionId: string;
      balancePaise: number;
      dueDate: string;
      invoiceNumber: string | null;
    }
  | { kind: 'account'; claimedPaise: number }
);

const alreadyDecided = () => errors.conflict('claim is already decided');

/**
 * "I have paid" claims, decided by the business (PRODUCT part 11): a due's claims from its pay
 * page, and a contact's account claims from the account page. Confirming one records its money in
 * the same database transaction as the decision (a due's claim: a payment of that due; an account
 * claim: a receipt allocated oldest first), so a claim is confirmed exactly when its money exists.
 * The earlier shape's claimCount still counts a due's claims made, whatever became of them.
 */
export class ClaimService {
  constructor(private readonly deps: { db: Db; clock: Clock; contacts: ContactService }) {}

  /** A due's or an account's claims, oldest first; an unknown, deleted or another business's owner: 404. */
  async list(business: BusinessRow, owner: repo.ClaimOwner) {
    const db = this.deps.db;
    const found =
      'transactionId' in owner
        ? await transactionsRepo.findTransaction(db, business.id, owner.transactionId)
        : await findContact(db, business.id, owner.contactId);
    if (!found) throw errors.notFound('transactionId' in owner ? 'transaction' : 'contact');
    return repo.listClaims(db, business.id, owner);
  }

  /**
   * Claims waiting for the business, newest first (for the dashboard): a due's claims while the
   * due is open, with its contact, balance and date; account claims, with their contact and the
   * amount the buyer entered.
   */
  async listPending(business: BusinessRow, page: { limit: number; offset: number }): Promise<PendingClaim[]> {
    const rows = await repo.listPendingClaims(this.deps.db, business.id, page.limit, page.offset);
    return rows.map((r) => {
      const claim: repo.ClaimRow = {
        id: r.id,
        business_id: r.business_id,
        transaction_id: r.transaction_id,
        contact_id: r.contact_id,
        reference: r.reference,
        created_at: r.created_at,
        status: r.status,
        decided_at: r.decided_at,
        amount_paise: r.claimed_paise,
      };
      const base = { claim, contactId: r.owner_contact_id, contactName: r.contact_name };
      if (r.transaction_id === null) return { ...base, kind: 'account', claimedPaise: Number(r.claimed_paise) };
      return {
        ...base,
        kind: 'due',
        transactionId: r.transaction_id,
        balancePaise: balanceOf({
          amount_paise: r.amount_paise ?? 0,
          amount_paid_paise: r.amount_paid_paise ?? 0,
          amount_adjusted_paise: r.amount_adjusted_paise ?? 0,
        }),
        dueDate: r.due_date as string,
        invoiceNumber: r.invoice_number ?? null,
      };
    });
  }

  /** A contact's account claims waiting for a decision, oldest first, at most `limit`. */
  async listPendingOfContact(business: BusinessRow, contactId: string, limit: number) {
    return repo.listPendingAccountClaims(this.deps.db, business.id, contactId, limit);
  }

  /** One account claim of this contact (another contact's or business's: 404). */
  async getAccountClaim(business: BusinessRow, contactId: string, claimId: string) {
    const claim = await repo.findClaim(this.deps.db, business.id, { contactId }, claimId);
    if (!claim) throw errors.notFound('claim');
    return claim;
  }

  async confirm(
    business: BusinessRow,
    transactionId: string,
    claimId: string,
    input: { amount_paise?: number | undefined },
  ): Promise<{ claim: repo.ClaimRow } & RecordedPayment> {
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      const { due, claim } = await pendingClaim(trx, business, { transactionId }, claimId);
      if (due?.status === 'paid') throw errors.conflict('transaction is already paid');
      const decided = await repo.decideClaim(trx, claimId, 'confirmed', now.toISOString());
      if (!decided) throw alreadyDecided();
      const recorded = await recordPaymentIn(
        trx,
        business,
        transactionId,
        {
          amountPaise: input.amount_paise ?? balanceOf(due as NonNullable<typeof due>),
          utr: claim.reference,
          paymentMethod: 'upi',
          source: 'claim',
          claimId,
        },
        now,
      );
      return { claim: decided, ...recorded };
    });
  }

  /**
   * Confirms an account claim: a receipt of amount_paise (default: what the buyer said they paid),
   * allocated to the open dues oldest first, the rest as the contact's credit.
   */
  async confirmAccount(
    business: BusinessRow,
    contactId: string,
    claimId: string,
    input: { amount_paise?: number | undefined },
  ): Promise<ConfirmedAccountClaim & { contact: ContactRow; standing: ContactStanding }> {
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      const { claim } = await pendingClaim(trx, business, { contactId }, claimId);
      const confirmed = await confirmAccountClaimIn(
        trx,
        business,
        { id: claim.id, contact_id: contactId, reference: claim.reference },
        { amountPaise: input.amount_paise ?? Number(claim.amount_paise) },
        now,
      );
      if (!confirmed) throw alreadyDecided();
      const contact = (await lockContact(trx, business.id, contactId)) as ContactRow;
      const standing = await this.deps.contacts.standing(trx, business, contactId);
      return { ...confirmed, contact, standing };
    });
  }

  async reject(business: BusinessRow, owner: repo.ClaimOwner, claimId: string): Promise<repo.ClaimRow> {
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      await pendingClaim(trx, business, owner, claimId);
      const decided = await repo.decideClaim(trx, claimId, 'rejected', now.toISOString());
      if (!decided) throw alreadyDecided();
      return decided;
    });
  }
}
