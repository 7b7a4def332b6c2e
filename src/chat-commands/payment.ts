import type { BusinessRow } from '../businesses/repository.js';
import type { TransactionService } from '../transactions/service.js';
import type { PaymentMethod } from './parser.js';
import type { OpenDue } from './repository.js';

export interface ChatPaymentResult {
  /** the dues the payment settled, oldest first */
  settled: OpenDue[];
  /** what of the amount (or, without one, of the balance) was not recorded, and why */
  unrecorded:
    | null
    /** a remainder smaller than the next due: a part payment, not recordable yet */
    | { reason: 'part_payment'; paise: number; due: OpenDue }
    /** settling a later due failed after earlier ones were recorded: those stay recorded */
    | { reason: 'failed'; paise: number; error: unknown };
}

/**
 * THE SEAM for `paid <name> [<amount>]` (PRODUCT part 15): the amount goes to the contact's open dues
 * oldest first; each due it covers whole is settled with the existing mark-paid (one payment of
 * the whole due, its transaction.paid event, totals and cancelled reminders, each in the service's
 * own database transaction). Without an amount every open due is settled.
 *
 * A remainder smaller than the next due is a part payment, which the transactions service cannot
 * record yet: it comes back as `unrecorded` and the owner is told. When part payments land, the
 * loop body becomes
 *   transactions.recordPayment(business, due.id, { amountPaise: min(remaining, balance), utr: null,
 *     paymentMethod, source: 'chat' })
 * over the dues' balances (not amounts), and the `part_payment` case disappears.
 *
 * A failure before anything was recorded is thrown (the command did nothing and may be retried);
 * one after some dues were settled is returned, so that the owner is told exactly what was
 * recorded and a retry of the message cannot apply the same amount twice.
 */
export async function applyChatPayment(
  transactions: TransactionService,
  business: BusinessRow,
  dues: OpenDue[],
  amountPaise: number | null,
  method: PaymentMethod | null,
): Promise<ChatPaymentResult> {
  const settled: OpenDue[] = [];
  let remaining = amountPaise ?? dues.reduce((sum, d) => sum + d.amount_paise, 0);
  for (const due of dues) {
    if (remaining === 0) break;
    if (remaining < due.amount_paise) return { settled, unrecorded: { reason: 'part_payment', paise: remaining, due } };
    try {
      await transactions.markPaid(business, due.id, { payment_method: method ?? 'other' });
    } catch (error) {
      if (settled.length === 0) throw error;
      return { settled, unrecorded: { reason: 'failed', paise: remaining, error } };
    }
    settled.push(due);
    remaining -= due.amount_paise;
  }
  return { settled, unrecorded: null };
}
