import type { BusinessRow } from '../businesses/repository.js';
import type { TransactionService } from '../transactions/service.js';
import type { PaymentMethod } from './parser.js';
import type { OpenDue } from './repository.js';

export interface ChatPaymentResult {
  /** the dues the payment settled, oldest first */
  settled: OpenDue[];
  /** what was left of the amount after the dues it settled whole (0 when all was recorded) */
  unrecordedPaise: number;
  /** the open due the unrecorded remainder would go to as a part payment */
  partDue: OpenDue | null;
}

/**
 * THE SEAM for `paid <name> [<amount>]` (PRODUCT part 15): the amount goes to the contact's open dues
 * oldest first; each due it covers whole is settled with the existing mark-paid (one payment of
 * the whole due, its transaction.paid event, totals and cancelled reminders, each in the service's
 * own database transaction). Without an amount every open due is settled.
 *
 * A remainder smaller than the next due is a part payment, which the transactions service cannot
 * record yet: it is returned as `unrecordedPaise` and the owner is told. When the lifecycle work
 * lands, replace the loop's body with
 *   transactions.recordPayment(business, due.id, { amountPaise, utr: null, paymentMethod, source: 'chat' })
 * for min(remaining, balance) on each due (balances instead of amounts), and the remainder is gone.
 */
export async function applyChatPayment(
  transactions: TransactionService,
  business: BusinessRow,
  dues: OpenDue[],
  amountPaise: number | null,
  method: PaymentMethod | null,
): Promise<ChatPaymentResult> {
  const settled: OpenDue[] = [];
  let remaining = amountPaise ?? Number.POSITIVE_INFINITY;
  for (const due of dues) {
    if (remaining === 0) break;
    if (remaining < due.amount_paise) {
      return { settled, unrecordedPaise: remaining, partDue: due };
    }
    await transactions.markPaid(business, due.id, { payment_method: method ?? 'other' });
    settled.push(due);
    remaining -= due.amount_paise;
  }
  return { settled, unrecordedPaise: 0, partDue: null };
}
