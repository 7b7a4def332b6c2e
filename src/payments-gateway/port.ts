/**
 * The payments gateway port (ARCHITECTURE: ports with a real adapter and a test fake), like the
 * chat channel's. The pay page asks it for a payment link of a due's balance; the gateway's
 * webhook (verified by the adapter's own rules) tells us what was paid.
 */

export interface CreateLinkInput {
  /**
   * what the gateway hands back in its webhook as reference_id: the due's id for a due's link, the
   * link's own row id for an account's (account_payment_links.id)
   */
  referenceId: string;
  /** kept with the link at the gateway, for a person reading its dashboard */
  notes: Record<string, string>;
  amountPaise: number;
  currency: string;
  description: string;
  /** the contact's phone with a leading +, when known */
  customerPhone: string | null;
  customerName: string;
  /** where the gateway sends the buyer back to: the pay page or the account page */
  callbackUrl: string;
}

export interface PaymentLink {
  /** the gateway's id of the link (Razorpay: plink_…) */
  id: string;
  /** where the buyer pays */
  shortUrl: string;
}

/** A payment the gateway reports as made (Razorpay: payment_link.paid). */
export interface GatewayPaymentReport {
  /** the gateway's payment id: the same payment reported twice is recorded once */
  paymentId: string;
  /** the reference we gave the link (the due's id), as the gateway returns it */
  referenceId: string | null;
  linkId: string | null;
  /** the link's amount as the gateway reports it: must be the amount of the link we created */
  linkAmountPaise: number | null;
  amountPaise: number;
  /** the payment's currency (ISO 4217): must be the business's */
  currency: string | null;
  /** the gateway's method name, mapped by paymentMethodOf */
  method: string | null;
}

export interface PaymentsGateway {
  readonly name: 'razorpay';
  /** origins the buyer is sent to for paying (the pay page's CSP lets its form lead there) */
  readonly linkOrigins: readonly string[];
  /** Resolves with the new link; rejects with a GatewayError when the gateway did not make one. */
  createLink(input: CreateLinkInput): Promise<PaymentLink>;
  /** Cancels a link that must no longer take money; rejects with a GatewayError. */
  cancelLink(linkId: string): Promise<void>;
}

/**
 * The gateway did not do what was asked. `message` is short and safe to show; `detail` (the
 * gateway's own words, never a credential) is for the logs.
 */
export class GatewayError extends Error {
  readonly detail: string | undefined;
  /** the gateway refused (a 4xx other than 429): asking again will not change its answer */
  readonly refused: boolean;
  constructor(message: string, detail?: string, options: { refused?: boolean } = {}) {
    super(message);
    this.name = 'GatewayError';
    this.detail = detail;
    this.refused = options.refused ?? false;
  }
}

/** PRODUCT part 11: upi, card as they are; netbanking is a bank transfer; anything else other. */
export function paymentMethodOf(method: string | null): 'upi' | 'card' | 'bank_transfer' | 'other' {
  if (method === 'upi' || method === 'card') return method;
  if (method === 'netbanking') return 'bank_transfer';
  return 'other';
}
