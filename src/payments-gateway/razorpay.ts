import { createHmac, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, request } from 'undici';
import {
  type CreateLinkInput,
  GatewayError,
  type GatewayPaymentReport,
  type PaymentLink,
  type PaymentsGateway,
} from './port.js';

export interface RazorpayOptions {
  /** https://api.razorpay.com (no trailing slash) */
  apiBase: string;
  keyId: string;
  keySecret: string;
  /** per attempt */
  timeoutMs?: number;
  /** further attempts after a network error, a timeout, a 429 or a 5xx */
  retries?: number;
  /** wait before the first retry; doubled for each further one */
  retryDelayMs?: number;
  dispatcher?: Dispatcher;
}

interface Answer {
  status: number;
  text: string;
}

function razorpayError(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; description?: unknown } };
    if (body.error) return `${String(body.error.code)}: ${String(body.error.description)}`.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 300);
}

const retryable = (status: number) => status === 429 || status >= 500;

/**
 * Razorpay Payment Links (https://razorpay.com/docs/api/payments/payment-links/) over undici:
 * HTTP basic auth with the key id and secret, a timeout per attempt, and a few retries with
 * back-off for what may pass (network errors, timeouts, 429, 5xx). Errors never carry the key.
 */
export class RazorpayGateway implements PaymentsGateway {
  readonly name = 'razorpay';
  /** Razorpay's short links are on rzp.io; a test gateway serves its own from its API origin. */
  readonly linkOrigins: readonly string[];
  readonly #authorization: string;

  constructor(private readonly options: RazorpayOptions) {
    this.linkOrigins = [...new Set(['https://rzp.io', new URL(options.apiBase).origin])];
    this.#authorization = `Basic ${Buffer.from(`${options.keyId}:${options.keySecret}`).toString('base64')}`;
  }

  async createLink(input: CreateLinkInput): Promise<PaymentLink> {
    const body = {
      amount: input.amountPaise,
      currency: input.currency,
      accept_partial: false,
      reference_id: input.referenceId,
      description: input.description.slice(0, 2048),
      customer: {
        name: input.customerName,
        ...(input.customerPhone !== null && { contact: input.customerPhone }),
      },
      notify: { sms: false, email: false },
      reminder_enable: false,
      notes: input.notes,
      callback_url: input.callbackUrl,
      callback_method: 'get',
    };
    const answer = await this.#call('POST', '/v1/payment_links', body);
    if (answer.status < 200 || answer.status >= 300) {
      throw new GatewayError(
        `the payment gateway refused the payment link (HTTP ${answer.status})`,
        razorpayError(answer.text),
        { refused: !retryable(answer.status) },
      );
    }
    let link: { id?: unknown; short_url?: unknown };
    try {
      link = JSON.parse(answer.text) as typeof link;
    } catch {
      link = {};
    }
    if (typeof link.id !== 'string' || typeof link.short_url !== 'string' || !/^https?:\/\//.test(link.short_url)) {
      throw new GatewayError('the payment gateway answered without a payment link', answer.text.slice(0, 300));
    }
    return { id: link.id, shortUrl: link.short_url };
  }

  async cancelLink(linkId: string): Promise<void> {
    const answer = await this.#call('POST', `/v1/payment_links/${encodeURIComponent(linkId)}/cancel`, undefined);
    if (answer.status < 200 || answer.status >= 300) {
      throw new GatewayError(
        `the payment gateway did not cancel the link (HTTP ${answer.status})`,
        razorpayError(answer.text),
        { refused: !retryable(answer.status) },
      );
    }
  }

  async #call(method: 'POST', path: string, body: unknown): Promise<Answer> {
    const { timeoutMs = 10_000, retries = 2, retryDelayMs = 250 } = this.options;
    for (let attempt = 0; ; attempt++) {
      let answer: Answer | undefined;
      let failure: GatewayError | undefined;
      try {
        const response = await request(`${this.options.apiBase}${path}`, {
          method,
          headers: {
            authorization: this.#authorization,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
          ...(this.options.dispatcher && { dispatcher: this.options.dispatcher }),
        });
        answer = { status: response.statusCode, text: await response.body.text() };
      } catch (error) {
        const name = (error as Error).name;
        failure = new GatewayError(
          name === 'TimeoutError' || name === 'AbortError'
            ? `the payment gateway did not answer within ${timeoutMs} ms`
            : 'the payment gateway could not be reached',
          (error as Error).message,
        );
      }
      const again = failure !== undefined || retryable((answer as Answer).status);
      if (!again || attempt >= retries) {
        if (failure) throw failure;
        return answer as Answer;
      }
      await sleep(retryDelayMs * 2 ** attempt);
    }
  }
}

/** X-Razorpay-Signature: the hex HMAC-SHA256 of the exact body bytes, keyed with the webhook secret. */
export function validRazorpaySignature(raw: Buffer, header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(header.trim().toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The payment of a `payment_link.paid` webhook (payload.payment_link.entity.reference_id,
 * payload.payment.entity.{id, amount, method}); null for any other event or a payload without a
 * usable payment (acknowledged and ignored by the caller).
 */
export function paymentOfWebhook(body: unknown): GatewayPaymentReport | null {
  const event = body as {
    event?: unknown;
    payload?: {
      payment_link?: { entity?: { id?: unknown; reference_id?: unknown; amount?: unknown; currency?: unknown } };
      payment?: { entity?: { id?: unknown; amount?: unknown; method?: unknown; currency?: unknown } };
    };
  } | null;
  if (event === null || typeof event !== 'object' || event.event !== 'payment_link.paid') return null;
  const link = event.payload?.payment_link?.entity;
  const payment = event.payload?.payment?.entity;
  if (typeof payment?.id !== 'string' || payment.id === '' || payment.id.length > 100) return null;
  if (typeof payment.amount !== 'number' || !Number.isSafeInteger(payment.amount) || payment.amount <= 0) return null;
  return {
    paymentId: payment.id,
    referenceId: typeof link?.reference_id === 'string' ? link.reference_id : null,
    linkId: typeof link?.id === 'string' ? link.id : null,
    linkAmountPaise: typeof link?.amount === 'number' ? link.amount : null,
    amountPaise: payment.amount,
    currency: typeof payment.currency === 'string' ? payment.currency : null,
    method: typeof payment.method === 'string' ? payment.method : null,
  };
}
