import { createHttpSender } from '../../src/webhooks/sender.js';
import { type Harness, startHarness } from './harness.js';
import { type HttpsReceiver, startHttpsReceiver } from './https-receiver.js';

/**
 * A harness whose webhook sender trusts a fresh local HTTPS receiver (its self-signed certificate
 * through an injected CA), for the tests that watch events arrive at a real receiver. `close`
 * closes both.
 */
export async function startHarnessWithReceiver(
  options: Omit<NonNullable<Parameters<typeof startHarness>[0]>, 'webhookSender'> & { senderTimeoutMs?: number } = {},
): Promise<{ h: Harness; receiver: HttpsReceiver; close: () => Promise<void> }> {
  const { senderTimeoutMs = 5000, ...rest } = options;
  const receiver = await startHttpsReceiver();
  let h: Harness;
  try {
    h = await startHarness({
      ...rest,
      webhookSender: createHttpSender({ timeoutMs: senderTimeoutMs, allowPrivateNetworks: true, ca: receiver.ca }),
    });
  } catch (error) {
    await receiver.close();
    throw error;
  }
  return {
    h,
    receiver,
    close: async () => {
      await h.close();
      await receiver.close();
    },
  };
}
