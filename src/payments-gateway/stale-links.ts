import type { GatewayError, PaymentsGateway } from './port.js';

/**
 * The gateway links still open for one balance (a due's or a buyer's account): the one for this
 * amount is reused; the others are cancelled at the gateway and marked so. A link that cannot be
 * cancelled now is left open and tried again next time; paid meanwhile, its webhook still records
 * the money.
 */
export async function reuseOrCancel(
  gateway: PaymentsGateway,
  open: readonly { gateway_link_id: string; amount_paise: number | string | bigint; short_url: string }[],
  balancePaise: number,
  markCancelled: (gatewayLinkId: string) => Promise<unknown>,
): Promise<{ reusable: string | null; cancelFailures: GatewayError[] }> {
  const reusable = open.find((l) => Number(l.amount_paise) === balancePaise);
  if (reusable) return { reusable: reusable.short_url, cancelFailures: [] };
  const cancelFailures: GatewayError[] = [];
  for (const stale of open) {
    try {
      await gateway.cancelLink(stale.gateway_link_id);
      await markCancelled(stale.gateway_link_id);
    } catch (error) {
      cancelFailures.push(error as GatewayError);
    }
  }
  return { reusable: null, cancelFailures };
}
