import type { Clock } from '../lib/clock.js';
import type { SealedSecrets } from './endpoint-repository.js';
import { deliveryHeaders } from './payload.js';
import type { SecretBox } from './secret-box.js';
import type { WebhookResult, WebhookSender } from './sender.js';
import { secretsInForce } from './sending-secrets.js';

/**
 * One signed attempt: reads the endpoint's secrets in force now (`secrets`), signs the exact body
 * with them and sends it. Never throws; a failure (even a secret that no longer opens) is a
 * result. Used by the dispatcher and by the test operation.
 */
export async function signAndSend(
  deps: { sender: WebhookSender; secretBox: () => Promise<SecretBox>; clock: Clock },
  d: {
    url: string;
    endpointId: string;
    secrets: () => Promise<SealedSecrets | undefined>;
    body: string;
    event: string;
    eventId: string;
    deliveryId: string;
  },
): Promise<WebhookResult> {
  try {
    const [box, sealed] = await Promise.all([deps.secretBox(), d.secrets()]);
    if (sealed === undefined) throw new Error('endpoint not found');
    const now = deps.clock.now();
    const headers = deliveryHeaders({
      body: d.body,
      secrets: secretsInForce(box, d.endpointId, sealed, now),
      event: d.event,
      eventId: d.eventId,
      deliveryId: d.deliveryId,
      timestamp: Math.floor(now.getTime() / 1000),
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
