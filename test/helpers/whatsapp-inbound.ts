import { createHmac, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Harness } from './harness.js';

/**
 * WhatsApp Cloud API webhooks as Meta sends them, for the tests that drive the chat channel over
 * HTTP: the body shapes, the X-Hub-Signature-256 signature (HMAC-SHA256 of the raw body keyed with
 * the app secret), and a helper that posts one signed message.
 */

const METADATA = { display_phone_number: '15550001111', phone_number_id: '109876543210' };

/** The webhook envelope around one change of the `messages` field. */
function envelope(value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA_ID', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', ...value } }] }],
  };
}

/** A text message from `from` (digits with the country code). */
export function whatsappMessagePayload(
  from: string,
  text: string,
  options: { id?: string; name?: string; timestamp?: string; context?: string } = {},
) {
  const { id = `wamid.${randomBytes(8).toString('hex')}`, name, timestamp = '1782880000', context } = options;
  return envelope({
    metadata: METADATA,
    ...(name !== undefined && { contacts: [{ profile: { name }, wa_id: from }] }),
    messages: [
      {
        from,
        id,
        timestamp,
        type: 'text',
        text: { body: text },
        // A reply to one of our messages names it (WhatsApp's context).
        ...(context !== undefined && { context: { from: METADATA.display_phone_number, id: context } }),
      },
    ],
  });
}

/** Delivery status updates of messages we sent. */
export function whatsappStatusPayload(
  statuses: { id: string; status: string; errors?: unknown[]; pricing?: Record<string, unknown> }[],
) {
  return envelope({
    metadata: METADATA,
    statuses: statuses.map((s) => ({ recipient_id: '919999999999', timestamp: '1782880000', ...s })),
  });
}

/** X-Hub-Signature-256 of a raw body. */
export function whatsappSignature(raw: string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}

/**
 * A chat message from `from` delivered as WhatsApp does, posted to /channels/whatsapp/webhook. The
 * harness must be started with WHATSAPP_APP_SECRET set to `appSecret`.
 */
export async function sendWhatsAppMessage(
  h: Harness,
  appSecret: string,
  from: string,
  text: string,
  id = `wamid.${randomBytes(8).toString('hex')}`,
): Promise<void> {
  const raw = JSON.stringify(whatsappMessagePayload(from, text, { id, timestamp: '1900000000' }));
  const res = await h.request('POST', '/channels/whatsapp/webhook', {
    payload: raw,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(raw, appSecret) },
  });
  expect(res.status).toBe(200);
}

/** Posts a webhook body as Meta does (signed), expecting 200. */
export async function postWhatsAppWebhook(h: Harness, appSecret: string, payload: unknown): Promise<void> {
  const raw = JSON.stringify(payload);
  const res = await h.request('POST', '/channels/whatsapp/webhook', {
    payload: raw,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(raw, appSecret) },
  });
  expect(res.status, res.text).toBe(200);
}

/** A buyer's reply to one of our messages (`context` is its wamid), or to none. */
export function replyToWhatsApp(h: Harness, appSecret: string, from: string, text: string, context?: string) {
  return postWhatsAppWebhook(
    h,
    appSecret,
    whatsappMessagePayload(from, text, { timestamp: '1900000000', ...(context !== undefined && { context }) }),
  );
}
