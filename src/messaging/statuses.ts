import type { InboundStatus } from '../channels/channel.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { messageCost, type PriceTable } from './prices.js';
import * as repo from './repository.js';

/** The Cloud API's error codes that say something about the phone rather than the message. */
export const UNREACHABLE = 131026;
export const WINDOW_CLOSED = 131047;
export const DECLINED = 131050;

/**
 * A status webhook about a message we sent: its delivery (only moving forward), its error code,
 * its pricing category and cost; and what a failure says about the phone, so that nothing is sent
 * to it again in vain: 131026 (cannot receive) marks it unreachable until it writes to us (a
 * contact whose phone changes is reachable again), 131050 (the buyer stopped these messages) opts
 * it out as STOP does, 131047 (the 24-hour window had closed) makes its next message a template.
 * Returns the reminder the message was (null for none, or an unknown message).
 */
export async function applyStatus(
  deps: { db: Db; clock: Clock; prices: PriceTable },
  status: InboundStatus,
): Promise<string | null> {
  const rank = repo.DELIVERY_RANK[status.status];
  if (rank === undefined) return null;
  const { db } = deps;
  const at = deps.clock.now().toISOString();
  return db.transaction().execute(async (trx) => {
    const message = await repo.findMessage(trx, status.messageId);
    if (!message) return null;
    const forward = (repo.DELIVERY_RANK[message.delivery ?? ''] ?? 0) < rank;
    const priced = status.category !== null && status.category !== message.category;
    if (!forward && !priced) return message.reminder_id;
    await repo.updateMessage(trx, message.id, {
      ...(forward && { delivery: status.status, error_code: status.errorCode }),
      ...(priced && {
        category: status.category,
        cost_millipaise: messageCost(deps.prices, status.category, status.billable),
      }),
      updated_at: at,
    });
    if (forward && status.status === 'failed') {
      if (status.errorCode === UNREACHABLE) await repo.markUnreachable(trx, message.phone, at);
      else if (status.errorCode === DECLINED) await repo.optOut(trx, message.phone, at);
      else if (status.errorCode === WINDOW_CLOSED) await repo.closeWindow(trx, message.phone);
    }
    return message.reminder_id;
  });
}
