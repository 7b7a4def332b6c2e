import type { BusinessRow } from '../businesses/repository.js';
import type { Db, Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { isUuid, uuidv7 } from '../lib/ids.js';
import { balanceOf } from '../transactions/domain.js';
import { recordPaymentIn } from '../transactions/payments.js';
import * as transactionsRepo from '../transactions/repository.js';
import {
  type AccountLinkOutcome,
  type AccountLinkRequest,
  type AccountPaymentOutcome,
  accountLinkFor,
  recordAccountPaymentIn,
} from './account.js';
import { GatewayError, type GatewayPaymentReport, type PaymentsGateway, paymentMethodOf } from './port.js';
import * as repo from './repository.js';
import { reuseOrCancel } from './stale-links.js';

/** The due the pay page wants a link for (what it already read). */
export interface LinkRequest {
  transactionId: string;
  businessId: string;
  businessName: string;
  balancePaise: number;
  currency: string;
  invoiceNumber: string | null;
  dueDate: string;
  payPageUrl: string;
}

export interface LinkOutcome {
  shortUrl: string;
  /** stale links the gateway would not cancel (logged by the caller; tried again next time) */
  cancelFailures: GatewayError[];
}

export interface StaleLinksOutcome {
  cancelled: number;
  /** links the gateway would not cancel, with its reason (for the logs) */
  refused: { linkId: string; transactionId: string; error: GatewayError }[];
}

/**
 * Why money a gateway reported went to no due: the due was settled or deleted; or the report does
 * not match what this service asked for (another currency than the business's, a link it did not
 * create for that due, or a link amount other than the one it created), so nothing is recorded on
 * the due on the strength of it.
 */
export type UnappliedReason = 'settled' | 'deleted' | 'currency' | 'unknown_link' | 'link_amount';

export type GatewayPaymentOutcome =
  | { kind: 'recorded'; transactionId: string; paymentId: string; unappliedPaise: number }
  | { kind: 'unapplied'; transactionId: string; reason: UnappliedReason; unappliedPaise: number }
  | { kind: 'duplicate' }
  | { kind: 'unknown_reference'; referenceId: string | null }
  | AccountPaymentOutcome;

/**
 * Money in through the payments gateway (PRODUCT part 11): payment links for the pay page, and the
 * gateway's reports of payments, recorded once each through recordPaymentIn (one database
 * transaction with the payment, the due, the totals and the events).
 */
export class GatewayService {
  constructor(private readonly deps: { db: Db; clock: Clock; gateway: PaymentsGateway | undefined }) {}

  /** Whether a gateway is configured (PAYMENTS_GATEWAY): the pay page offers "Pay online" only then. */
  get online(): boolean {
    return this.deps.gateway !== undefined;
  }

  /** Where "Pay online" may lead the buyer (for the pay page's CSP). */
  get linkOrigins(): readonly string[] {
    return this.deps.gateway?.linkOrigins ?? [];
  }

  /**
   * A link for the due's balance: the newest open link of that very amount is reused; open links
   * of another amount (the balance changed) are cancelled and a new one is made. Rejects with a
   * GatewayError when the gateway makes none.
   */
  async linkFor(due: LinkRequest): Promise<LinkOutcome> {
    const { db, gateway, clock } = this.deps;
    if (!gateway) throw new GatewayError('online payment is not set up');
    const open = await repo.openLinks(db, due.transactionId);
    const { reusable, cancelFailures } = await reuseOrCancel(gateway, open, due.balancePaise, (id) =>
      repo.setLinkStatus(db, id, 'cancelled'),
    );
    if (reusable !== null) return { shortUrl: reusable, cancelFailures };
    const contact = await repo.contactOfDue(db, due.transactionId);
    const link = await gateway.createLink({
      referenceId: due.transactionId,
      notes: { transaction_id: due.transactionId },
      amountPaise: due.balancePaise,
      currency: due.currency,
      description: due.invoiceNumber
        ? `${due.businessName}: invoice ${due.invoiceNumber}`
        : `${due.businessName}: due ${due.dueDate}`,
      customerName: contact?.name ?? '',
      customerPhone: contact?.phone ? `+${contact.phone.replace(/^\+/, '')}` : null,
      callbackUrl: due.payPageUrl,
    });
    const now = clock.now();
    await repo.insertLink(db, {
      id: uuidv7(now.getTime()),
      business_id: due.businessId,
      transaction_id: due.transactionId,
      gateway_link_id: link.id,
      amount_paise: due.balancePaise,
      short_url: link.shortUrl,
      status: 'created',
      created_at: now.toISOString(),
    });
    return { shortUrl: link.shortUrl, cancelFailures };
  }

  /** A link for a buyer's whole balance (the account page's "Pay online"): see account.ts. */
  accountLinkFor(account: AccountLinkRequest): Promise<AccountLinkOutcome> {
    const { db, clock, gateway } = this.deps;
    if (!gateway) throw new GatewayError('online payment is not set up');
    return accountLinkFor({ db, clock, gateway }, account);
  }

  /**
   * Records a payment the gateway reported, once per gateway payment id. Its reference names a due
   * (the pay page's link) or an account link (the account page's: a receipt, see account.ts). What the due cannot take
   * (it is settled or deleted, or the payment exceeds its balance) is kept as unapplied money.
   */
  async recordPayment(report: GatewayPaymentReport): Promise<GatewayPaymentOutcome> {
    const referenceId = report.referenceId;
    if (referenceId === null || !isUuid(referenceId)) return { kind: 'unknown_reference', referenceId };
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx): Promise<GatewayPaymentOutcome> => {
      const business = (await repo.businessOfDue(trx, referenceId)) as BusinessRow | undefined;
      if (!business) {
        const account = await repo.findAccountLink(trx, referenceId);
        if (!account) return { kind: 'unknown_reference', referenceId };
        const link = {
          contactId: account.contact_id,
          gatewayLinkId: account.gateway_link_id,
          amountPaise: Number(account.link_amount_paise),
        };
        return recordAccountPaymentIn(trx, account as BusinessRow, link, report, now);
      }
      const method = paymentMethodOf(report.method);
      const claimed = await repo.claimGatewayPayment(trx, {
        gateway_payment_id: report.paymentId,
        business_id: business.id,
        transaction_id: referenceId,
        contact_id: null,
        gateway_link_id: report.linkId,
        amount_paise: report.amountPaise,
        payment_method: method,
        payment_id: null,
        unapplied_paise: report.amountPaise,
        unapplied_reason: null,
        created_at: now.toISOString(),
      });
      if (!claimed) return { kind: 'duplicate' };
      const keep = async (reason: UnappliedReason): Promise<GatewayPaymentOutcome> => {
        await repo.settleGatewayPayment(trx, report.paymentId, {
          payment_id: null,
          unapplied_paise: report.amountPaise,
          unapplied_reason: reason,
        });
        return { kind: 'unapplied', transactionId: referenceId, reason, unappliedPaise: report.amountPaise };
      };
      const mismatch = await this.#mismatch(trx, business, referenceId, report);
      if (mismatch !== null) return keep(mismatch);
      if (report.linkId !== null) await repo.setLinkStatus(trx, report.linkId, 'paid');

      const due = await transactionsRepo.lockTransaction(trx, business.id, referenceId);
      if (!due || due.deleted_at !== null || due.status === 'paid') {
        return keep(due?.status === 'paid' ? 'settled' : 'deleted');
      }
      const applied = Math.min(report.amountPaise, balanceOf(due));
      const recorded = await recordPaymentIn(
        trx,
        business,
        referenceId,
        { amountPaise: applied, utr: report.paymentId, paymentMethod: method, source: 'gateway' },
        now,
      );
      const unappliedPaise = report.amountPaise - applied;
      await repo.settleGatewayPayment(trx, report.paymentId, {
        payment_id: recorded.payment.id,
        unapplied_paise: unappliedPaise,
        unapplied_reason: unappliedPaise > 0 ? 'over_balance' : null,
      });
      return { kind: 'recorded', transactionId: referenceId, paymentId: recorded.payment.id, unappliedPaise };
    });
  }

  /** What in a report does not match the link this service created for the due (null: it matches). */
  async #mismatch(
    trx: Executor,
    business: BusinessRow,
    transactionId: string,
    report: GatewayPaymentReport,
  ): Promise<UnappliedReason | null> {
    if (report.currency !== business.currency) return 'currency';
    const link = report.linkId === null ? undefined : await repo.findLinkOfDue(trx, report.linkId, transactionId);
    if (!link) return 'unknown_link';
    if (report.linkAmountPaise !== Number(link.amount_paise)) return 'link_amount';
    return null;
  }

  /**
   * Cancels at the gateway up to `limit` links whose due was settled by other means or deleted
   * (marked stale by the database in that same transaction). A link the gateway refuses to cancel
   * (already paid, cancelled or expired there) is marked refused and left alone: money paid on it
   * still comes by webhook and is kept as unapplied. A gateway that cannot be reached ends the batch
   * with its error (thrown when nothing was handled, so the worker backs off), and the rest wait.
   */
  async cancelStaleLinks(limit: number, signal?: AbortSignal): Promise<StaleLinksOutcome> {
    const { db, gateway } = this.deps;
    const outcome: StaleLinksOutcome = { cancelled: 0, refused: [] };
    if (!gateway) return outcome;
    for (const link of await repo.staleLinks(db, limit)) {
      if (signal?.aborted) break;
      try {
        await gateway.cancelLink(link.gateway_link_id);
        await repo.setLinkStatus(db, link.gateway_link_id, 'cancelled');
        outcome.cancelled++;
      } catch (error) {
        if (!(error instanceof GatewayError && error.refused)) {
          if (outcome.cancelled + outcome.refused.length === 0) throw error;
          break;
        }
        await repo.setLinkStatus(db, link.gateway_link_id, 'refused');
        outcome.refused.push({ linkId: link.gateway_link_id, transactionId: link.transaction_id, error });
      }
    }
    return outcome;
  }

  /** Money received that no due took, newest first (PRODUCT part 11), for the API and the dashboard. */
  async listUnapplied(business: BusinessRow, page: { limit: number; offset: number }) {
    const [rows, total] = await Promise.all([
      repo.listUnapplied(this.deps.db, business.id, page.limit, page.offset),
      repo.countUnapplied(this.deps.db, business.id),
    ]);
    return { rows, total };
  }
}
