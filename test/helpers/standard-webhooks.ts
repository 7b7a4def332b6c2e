import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import type { ReceivedRequest } from './https-receiver.js';

/** What the docs tell a receiver to do with the 64-hex secret. */
export function whsec(secretHex: string): string {
  return `whsec_${Buffer.from(secretHex, 'hex').toString('base64')}`;
}

/**
 * The official library's verification. It also checks the timestamp against its own clock (5
 * minutes' tolerance): that clock is set to the service's injected one while it checks.
 */
export function verifiedByLibrary(req: ReceivedRequest, secretHex: string, now: Date): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now);
  try {
    new Webhook(whsec(secretHex)).verify(req.body, {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

/** The unchanged X-Service-Signature: hex HMAC-SHA256 of the body keyed with the secret's 64 characters. */
export function serviceSignatureOk(req: ReceivedRequest, secretHex: string): boolean {
  return req.headers['x-service-signature'] === createHmac('sha256', secretHex).update(req.body).digest('hex');
}
