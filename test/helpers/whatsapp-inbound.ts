import { createHmac, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Harness } from './harness.js';

/**
 * A chat message from `from` delivered as WhatsApp does: the Cloud API's webhook body, signed with
 * the app secret (X-Hub-Signature-256), posted to /channels/whatsapp/webhook. The harness must be
 * started with WHATSAPP_APP_SECRET set to `appSecret`.
 */
export async function sendWhatsAppMessage(
  h: Harness,
  appSecret: string,
  from: string,
  text: string,
  id = `wamid.${randomBytes(8).toString('hex')}`,
): Promise<void> {
  const raw = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA_ID',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: '109876543210' },
              messages: [{ from, id, timestamp: '1900000000', type: 'text', text: { body: text } }],
            },
          },
        ],
      },
    ],
  });
  const signature = `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
  const res = await h.request('POST', '/channels/whatsapp/webhook', {
    payload: raw,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
  });
  expect(res.status).toBe(200);
}
