import type { BusinessRow } from '../businesses/repository.js';
import type { Db, Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import { recordReceiptIn } from '../transactions/account.js';
import { type GatewayError, type GatewayPaymentReport, type PaymentsGateway, paymentMethodOf } from './port.js';
import * as repo from './repository.js';
import { reuseOrCancel } from './stale-links.js';

/**
 * "Pay online" for a buyer's whole balance (PRODUCT part 18, the account page, through part 11's
 * gateway): a payment link of the balance, and the gateway's report of a payment on it recorded as
 * one receipt on the contact, allocated oldest due first, what is left over as credit.
 */

/** The account the page wants a link for (what it already read). */
export interface AccountLinkRequest {
  contactId: string;
  contactName: string;
  businessId: string;
  businessName: string;
  balancePaise: number;
  currency: string;
  accountPageUrl: string;
}

export interface AccountLinkOutcome {
  shortUrl: string;
  /** older open links the gateway would not cancel (logged by the caller; tried again next time) */
  cancelFailures: GatewayError[];
}

/**
 * A link for the account's balance: the newest open link of that very amount is reused; open links
 * of another amount (the balance changed) are cancelled and a new one is made, whose reference is
 * its own new row id (a gateway reference is unique per link). Rejects with a GatewayError when the
 * gateway makes none.
 */
export async function accountLinkFor(
  deps: { db: Db; clock: Clock; gateway: PaymentsGateway },
  account: AccountLinkRequest,
): Promise<AccountLinkOutcome> {
  const { db, gateway, clock } = deps;
  const open = await repo.openAccountLinks(db, account.contactId);
  const { reusable, cancelFailures } = await reuseOrCancel(gateway, open, account.balancePaise, (id) =>
    repo.setAccountLinkStatus(db, id, 'cancelled'),
  );
  if (reusable !== null) return { shortUrl: reusable, cancelFailures };
  const contact = await repo.contactPhone(db, account.contactId);
  const now = clock.now();
  const id = uuidv7(now.getTime());
  const link = await gateway.createLink({
    referenceId: id,
    notes: { contact_id: account.contactId },
    amountPaise: account.balancePaise,
    currency: account.currency,
    description: `${account.businessName}: account of ${account.contactName}`,
    customerName: account.contactName,
    customerPhone: contact?.phone ? `+${contact.phone.replace(/^\+/, '')}` : null,
    callbackUrl: account.accountPageUrl,
  });
  await repo.insertAccountLink(db, {
    id,
    business_id: account.businessId,
    contact_id: account.contactId,
    gateway_link_id: link.id,
    amount_paise: account.balancePaise,
    short_url: link.shortUrl,
    status: 'created',
    created_at: now.toISOString(),
  });
  return { shortUrl: link.shortUrl, cancelFailures };
}

/** Why money reported for an account link went to no due (part 26: the report does not match the link). */
export type AccountUnappliedReason = 'currency' | 'unknown_link' | 'link_amount';

export type AccountPaymentOutcome =
  | { kind: 'recorded'; contactId: string; receiptId: string; creditPaise: number; unappliedPaise: 0 }
  | { kind: 'unapplied'; contactId: string; reason: AccountUnappliedReason; unappliedPaise: number }
  | { kind: 'duplicate' };

/**
 * Records, inside the caller's transaction, a payment the gateway reported on an account link
 * (`link`: the row its reference names): once per gateway payment id (the gateway_payments primary
 * key: a concurrent second delivery waits for the first to commit, then inserts nothing), as one
 * receipt with the gateway's payment id as utr. A report that does not match the link (another
 * currency than the business's, another link id or link amount) records nothing on the account:
 * the money is kept as unapplied.
 */
export async function recordAccountPaymentIn(
  trx: Executor,
  business: BusinessRow,
  link: { contactId: string; gatewayLinkId: string; amountPaise: number },
  report: GatewayPaymentReport,
  now: Date,
): Promise<AccountPaymentOutcome> {
  const method = paymentMethodOf(report.method);
  const claimed = await repo.claimGatewayPayment(trx, {
    gateway_payment_id: report.paymentId,
    business_id: business.id,
    transaction_id: null,
    contact_id: link.contactId,
    gateway_link_id: report.linkId,
    amount_paise: report.amountPaise,
    payment_method: method,
    payment_id: null,
    unapplied_paise: report.amountPaise,
    unapplied_reason: null,
    created_at: now.toISOString(),
  });
  if (!claimed) return { kind: 'duplicate' };
  const reason: AccountUnappliedReason | null =
    report.currency !== business.currency
      ? 'currency'
      : report.linkId !== link.gatewayLinkId
        ? 'unknown_link'
        : report.linkAmountPaise !== link.amountPaise
          ? 'link_amount'
          : null;
  if (reason !== null) {
    await repo.settleGatewayPayment(trx, report.paymentId, {
      payment_id: null,
      unapplied_paise: report.amountPaise,
      unapplied_reason: reason,
    });
    return { kind: 'unapplied', contactId: link.contactId, reason, unappliedPaise: report.amountPaise };
  }
  await repo.setAccountLinkStatus(trx, link.gatewayLinkId, 'paid');
  const recorded = await recordReceiptIn(
    trx,
    business,
    link.contactId,
    { amountPaise: report.amountPaise, utr: report.paymentId, paymentMethod: method, source: 'gateway' },
    now,
  );
  await repo.settleGatewayPayment(trx, report.paymentId, {
    payment_id: null,
    unapplied_paise: 0,
    unapplied_reason: null,
  });
  return {
    kind: 'recorded',
    contactId: link.contactId,
    receiptId: recorded.receipt.id,
    creditPaise: Number(recorded.receipt.credit_paise),
    unappliedPaise: 0,
  };
}
