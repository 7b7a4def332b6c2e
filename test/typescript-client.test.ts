import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSample } from '../clients/typescript/examples/sync.js';
import { CLIENT_FILES, clientFiles } from '../clients/typescript/scripts/generate.js';
import {
  standardWebhooksSecret,
  verifyServiceSignature,
  verifyStandardSignature,
  verifyWebhook,
  WebhookVerificationError,
} from '../clients/typescript/src/webhooks.js';
import { deliveryBody, deliveryHeaders } from '../src/webhooks/payload.js';
import { type Harness, startHarness } from './helpers/harness.js';

/** The generated TypeScript client (clients/typescript): current, working, and its webhook helper. */
let h: Harness;
let baseUrl: string;

beforeAll(async () => {
  h = await startHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(() => h?.close());

describe('the TypeScript client', () => {
  it('is current: the committed document and types are what the API makes now (npm run client:generate)', async () => {
    const made = await clientFiles();
    const stale = (Object.keys(CLIENT_FILES) as Array<keyof typeof CLIENT_FILES>).filter(
      (name) => readFileSync(CLIENT_FILES[name], 'utf8') !== made[name],
    );
    expect(stale, 'run npm run client:generate and commit the result').toEqual([]);
  });

  it('runs the sample integration against a real server: create once with an Idempotency-Key, a receipt, sync by since', async () => {
    const biz = await h.newBusiness();
    const result = await runSample({ baseUrl, apiKey: biz.apiKey });
    expect(result.retried.replayed).toBe(true);
    expect(result.retried.due.id).toBe(result.created.id);
    expect(result.copied).toBe(1);
    expect(result.receipt).toMatchObject({ amount_paise: result.created.amount_paise, utr: 'SAMPLEUTR42' });
    expect(result.paidInCopy).toMatchObject({ id: result.created.id, status: 'paid', balance_paise: 0 });
    const listed = await biz.get('/v1/transactions');
    expect(listed.body.total).toBe(1);
  });
});

describe('the webhook verification helper', () => {
  const secret = 'ab'.repeat(32);
  const previous = 'cd'.repeat(32);
  const body = deliveryBody('transaction.paid', '2026-11-20T06:30:00.000Z', '{"id":"x","amountPaise":100}');
  const timestamp = 1_795_000_000;
  const now = new Date(timestamp * 1000 + 30_000);
  const signed = (secrets: [string, ...string[]]) =>
    deliveryHeaders({ body, secrets, event: 'transaction.paid', eventId: 'evt_1', deliveryId: 'dlv_1', timestamp });

  it('accepts a delivery signed as the service signs it, by either signature, and parses it', () => {
    const headers = signed([secret]);
    expect(verifyWebhook({ secrets: secret, body, headers, now })).toEqual(JSON.parse(body));
    expect(verifyStandardSignature({ secrets: secret, body, headers, now })).toBe(true);
    expect(verifyServiceSignature({ secrets: secret, body, headers })).toBe(true);
    const { 'webhook-signature': _s, ...serviceOnly } = headers;
    expect(verifyWebhook({ secrets: secret, body: Buffer.from(body), headers: serviceOnly, now }).event).toBe(
      'transaction.paid',
    );
    expect(verifyWebhook({ secrets: secret, body, headers: new Headers(headers), now }).event).toBe('transaction.paid');
  });

  it('accepts either secret during a rotation (several signatures in webhook-signature)', () => {
    const headers = signed([secret, previous]);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifyStandardSignature({ secrets: secret, body, headers, now })).toBe(true);
    expect(verifyStandardSignature({ secrets: previous, body, headers, now })).toBe(true);
    // X-Service-Signature keeps the previous secret's until it expires.
    expect(verifyServiceSignature({ secrets: [secret, previous], body, headers })).toBe(true);
    expect(verifyServiceSignature({ secrets: secret, body, headers })).toBe(false);
  });

  it('refuses a changed body, another secret, an old timestamp and missing headers', () => {
    const headers = signed([secret]);
    const wrong = (o: Partial<Parameters<typeof verifyWebhook>[0]>) => () =>
      verifyWebhook({ secrets: secret, body, headers, now, ...o });
    expect(wrong({ body: body.replace('100', '900') })).toThrow(WebhookVerificationError);
    expect(wrong({ secrets: previous })).toThrow(/webhook-signature does not match/);
    expect(wrong({ now: new Date(timestamp * 1000 + 301_000) })).toThrow(WebhookVerificationError);
    expect(wrong({ headers: { 'webhook-signature': headers['webhook-signature'] } })).toThrow(WebhookVerificationError);
    expect(wrong({ headers: { 'x-service-signature': '00'.repeat(32) } })).toThrow(/X-Service-Signature/);
    expect(wrong({ secrets: 'not-a-secret' })).toThrow(/64 hex characters/);
  });

  it('converts the secret to the whsec_ form the Standard Webhooks libraries verify with', () => {
    const headers = signed([secret]);
    const standard = new Webhook(standardWebhooksSecret(secret));
    const at = Math.floor(Date.now() / 1000);
    const fresh = deliveryHeaders({
      body,
      secrets: [secret],
      event: 'e',
      eventId: 'evt_2',
      deliveryId: 'd',
      timestamp: at,
    });
    expect(standard.verify(body, fresh)).toEqual(JSON.parse(body));
    expect(() => standard.verify(body, { ...fresh, 'webhook-id': 'evt_3' })).toThrow();
    expect(verifyStandardSignature({ secrets: standardWebhooksSecret(secret), body, headers, now })).toBe(true);
  });
});
