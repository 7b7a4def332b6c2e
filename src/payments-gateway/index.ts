import type { Config } from '../config.js';
import type { PaymentsGateway } from './port.js';
import { RazorpayGateway } from './razorpay.js';

/** The adapter PAYMENTS_GATEWAY names, or none (config.ts already checked razorpay's keys). */
export function createGateway(config: Pick<Config, 'paymentsGateway' | 'razorpay'>): PaymentsGateway | undefined {
  if (config.paymentsGateway !== 'razorpay') return undefined;
  const { apiBase, keyId, keySecret } = config.razorpay;
  if (!keyId || !keySecret) throw new Error('PAYMENTS_GATEWAY=razorpay needs RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET');
  return new RazorpayGateway({ apiBase, keyId, keySecret });
}
