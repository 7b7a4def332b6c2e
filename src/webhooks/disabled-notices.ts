import type { ChatChannel } from '../channels/channel.js';
import type { Db } from '../db/schema.js';
import { WEBHOOK_DISABLED_TEMPLATE } from '../messaging/templates.js';
import * as endpointsRepo from './endpoint-repository.js';

/** At most this many notices per call; the rest wait for the next one. */
const PER_CALL = 50;

/**
 * Tells each business whose endpoint was disabled after 3 days of failures, over the chat
 * channel (an approved template: the owner has usually not written to the service lately). The
 * flag set with the disablement is cleared once the channel took the message; one the channel
 * refused stays pending and is tried again on the dispatcher's next run. Returns how many were sent.
 */
export async function sendDisabledNotices(deps: { db: Db; channel: ChatChannel }): Promise<number> {
  const pending = await endpointsRepo.pendingDisabledNotices(deps.db, PER_CALL);
  let sent = 0;
  for (const notice of pending) {
    try {
      await deps.channel.send(
        {
          kind: 'template',
          to: notice.phone,
          template: WEBHOOK_DISABLED_TEMPLATE,
          language: notice.language,
          parameters: [notice.business_name, notice.url],
        },
        { purpose: 'notice', businessId: notice.business_id },
      );
    } catch {
      continue;
    }
    await endpointsRepo.clearDisabledNotice(deps.db, notice.id);
    sent++;
  }
  return sent;
}
