import type { Clock } from '../lib/clock.js';
import { deliveryHeaders } from './payload.js';
import type { SecretBox } from './secret-box.js';
import type { WebhookResult, WebhookSender } from './sender.js';

/**
 * One signed attempt: opens the endpoint's secret, signs the exact body and sends it. Never
 * throws; a failure (even a secret that no longer opens) is a result. Used by the dispatcher and
 * by the test operation.
 */
export async function signAndSend(
  deps: { sender: WebhookSender; secretBox: () => Promise<SecretBox>; clock: Clock },
  d: {
    url: string;
    endpointId: string;
    secretSealed: string;
    body: string;
    event: string;
    eventId: string;
    deliveryId: string;
  },
): Promise<WebhookResult> {
  try {
    const secret = (await deps.secretBox()).open(d.secretSealed, d.endpointId);
    const headers = deliveryHeaders({
      body: d.body,
      secrets: [secret],
      timestamp: Math.floor(deps.clock.now().getTime() / 1000),
      event: d.event,
      eventId: d.eventId,
      deliveryId: d.deliveryId,
    });
    return await deps.sender.send({ url: d.url, body: d.body, headers });
  } catch (error) {
    return { ok: false, status: null, error: shortError(error), durationMs: 0 };
  }
}

function shortError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 197)}...` : message;
}
