import { createHmac } from 'node:crypto';
import type { EventType } from '../outbox/events.js';

/** ISO 8601 UTC without milliseconds, as SPEC part 6 wants the envelope's `timestamp`. */
export function envelopeTimestamp(iso: string): string {
  return `${iso.slice(0, 19)}Z`;
}

/**
 * The exact body of a delivery: `{"event","timestamp","data"}`. `data` is the outbox row's JSON
 * text, spliced in as is (no parse and re-serialise), and the result is stored with the delivery
 * so that every retry sends the same bytes under the same signature.
 */
export function deliveryBody(type: string, createdAt: string, dataJson: string): string {
  return `{"event":${JSON.stringify(type)},"timestamp":"${envelopeTimestamp(createdAt)}","data":${dataJson}}`;
}

/** X-Service-Signature: hex HMAC-SHA256 of the body bytes, keyed with the 64-character secret string. */
export function sign(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/**
 * Standard Webhooks' signature (standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the bytes the secret encodes (64 hex characters: 32 bytes).
 * Its libraries verify it given `whsec_` + base64 of those bytes.
 */
export function standardSignature(secretHex: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', Buffer.from(secretHex, 'hex'));
  return `v1,${mac.update(`${id}.${timestamp}.`, 'utf8').update(body, 'utf8').digest('base64')}`;
}

/**
 * The headers of one attempt. `secrets`: the endpoint's secrets in force now, the newest first;
 * during a rotation's overlap there are two: webhook-signature carries a signature by each, and
 * X-Service-Signature (one value only) keeps the previous secret's until it expires.
 */
export function deliveryHeaders(opts: {
  body: string;
  secrets: readonly [string, ...string[]];
  event: string;
  eventId: string;
  deliveryId: string;
  /** Unix seconds of sending */
  timestamp: number;
}): Record<string, string> {
  const { body, secrets, eventId, timestamp } = opts;
  return {
    'content-type': 'application/json',
    'x-service-signature': sign(body, secrets[secrets.length - 1] as string),
    'x-service-event': opts.event,
    'x-service-event-id': eventId,
    'x-service-delivery-id': opts.deliveryId,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, eventId, timestamp, body)).join(' '),
  };
}

/**
 * A made-up but well-formed `data` for the test operation, in the shape PRODUCT part 5 gives each
 * event, so a receiver can exercise its parser without a real due being created.
 */
export function sampleData(type: EventType, at: string, currency: string): Record<string, unknown> {
  const transactionId = '00000000-0000-7000-8000-000000000001';
  const contactId = '00000000-0000-7000-8000-000000000002';
  const dueDate = at.slice(0, 10);
  switch (type) {
    case 'transaction.paid':
      return {
        id: transactionId,
        contactName: 'Sample Buyer',
        amountPaise: 123450,
        paidAt: at,
        paymentRef: 'SAMPLEUTR0001',
        paymentMethod: 'upi',
      };
    case 'payment.received':
      return {
        transactionId,
        amountPaise: 123450,
        paidAt: at,
        paymentRef: 'SAMPLEUTR0001',
        paymentMethod: 'upi',
      };
    case 'reminder.sent':
      return { transactionId, contactName: 'Sample Buyer', template: 'payment_reminder', sentAt: at };
    case 'contact.created':
      return { id: contactId, name: 'Sample Buyer', phone: '919800000000', createdAt: at };
    default:
      return {
        id: transactionId,
        contactId,
        contactName: 'Sample Buyer',
        contactPhone: '919800000000',
        amountPaise: 123450,
        currency,
        status: 'pending',
        dueDate,
        invoiceNumber: 'SAMPLE-1',
        notes: 'sample event sent by the test operation',
        createdAt: at,
        updatedAt: at,
      };
  }
}
