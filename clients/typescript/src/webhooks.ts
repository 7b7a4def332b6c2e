import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a webhook delivery from the receivables service, on the raw body exactly as received
 * (parse the JSON only after this says it is genuine).
 *
 * Every delivery is signed twice:
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 *   (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the 32 bytes the endpoint's
 *   64-hex-character secret encodes; space-separated, one per secret in force during a rotation);
 * - `X-Service-Signature`: the hex HMAC-SHA256 of the body, keyed with the secret's text.
 *
 * During a secret rotation pass both secrets (new and previous): a delivery is genuine when any
 * of them signed it.
 */

export interface WebhookDelivery {
  event: string;
  /** ISO 8601 UTC, without milliseconds */
  timestamp: string;
  data: Record<string, unknown>;
}

export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** the endpoint's secret (64 hex characters, as created), or several during a rotation */
  secrets: string | readonly string[];
  /** the raw request body */
  body: string | Uint8Array;
  headers: WebhookHeaders;
  /** how far webhook-timestamp may be from now (default 300 seconds): refuses old replays */
  toleranceSeconds?: number;
  now?: Date;
}

const HEX_SECRET = /^[0-9a-f]{64}$/i;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function secretList(secrets: string | readonly string[]): string[] {
  const list = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (list.length === 0) throw new WebhookVerificationError('no secret given');
  return list;
}

function bytes(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The key Standard Webhooks signs with: the bytes the 64-hex secret encodes (or a `whsec_` secret's). */
function standardKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) return Buffer.from(secret.slice('whsec_'.length), 'base64');
  if (!HEX_SECRET.test(secret)) throw new WebhookVerificationError('a secret is 64 hex characters (or whsec_...)');
  return Buffer.from(secret, 'hex');
}

/** `whsec_` + base64 of the secret's bytes: the form the Standard Webhooks libraries take. */
export function standardWebhooksSecret(hexSecret: string): string {
  return `whsec_${standardKey(hexSecret).toString('base64')}`;
}

/** True when `webhook-signature` carries a valid signature by one of the secrets, within the tolerance. */
export function verifyStandardSignature(options: VerifyOptions): boolean {
  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signatures = header(options.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), bytes(options.body)]);
  const given = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  return secretList(options.secrets).some((secret) => {
    const expected = createHmac('sha256', standardKey(secret)).update(signed).digest('base64');
    return given.some((signature) => sameText(signature, expected));
  });
}

/** True when `X-Service-Signature` is the hex HMAC-SHA256 of the body keyed with one of the secrets. */
export function verifyServiceSignature(options: Omit<VerifyOptions, 'toleranceSeconds' | 'now'>): boolean {
  const given = header(options.headers, 'x-service-signature')?.trim().toLowerCase();
  if (!given) return false;
  return secretList(options.secrets).some((secret) =>
    sameText(given, createHmac('sha256', secret).update(bytes(options.body)).digest('hex')),
  );
}

/**
 * The delivery, parsed, once its signature checks out: Standard Webhooks' when the request has
 * `webhook-signature`, else `X-Service-Signature`. Throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(options: VerifyOptions): WebhookDelivery {
  const standard = header(options.headers, 'webhook-signature') !== undefined;
  const valid = standard ? verifyStandardSignature(options) : verifyServiceSignature(options);
  if (!valid) {
    throw new WebhookVerificationError(
      standard
        ? 'webhook-signature does not match (or webhook-timestamp is outside the tolerance)'
        : 'X-Service-Signature does not match',
    );
  }
  return JSON.parse(bytes(options.body).toString('utf8')) as WebhookDelivery;
}
