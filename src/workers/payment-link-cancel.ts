import type { Logger } from 'pino';
import type { GatewayService } from '../payments-gateway/service.js';
import type { Job } from './runner.js';

/**
 * Cancels, at the payments gateway, the links of dues that were settled by other means or deleted
 * (PRODUCT part 11: a buyer must not be able to pay a due twice through an old link). Several
 * processes may run it: two cancelling one link at once is harmless (the second is refused by the
 * gateway and the link's state stays as the first left it, or reads `refused`).
 */
export function paymentLinkCancel(
  deps: { moneyIn: GatewayService; logger?: Logger },
  idleMs = 30_000,
  batch = 50,
): Job {
  return {
    name: 'payment-link-cancel',
    idleMs,
    runOnce: async (signal) => {
      const outcome = await deps.moneyIn.cancelStaleLinks(batch, signal);
      for (const refusal of outcome.refused) {
        deps.logger?.warn(
          { linkId: refusal.linkId, transactionId: refusal.transactionId, reason: refusal.error.detail },
          'the payments gateway would not cancel a stale payment link',
        );
      }
      return outcome.cancelled + outcome.refused.length;
    },
  };
}
