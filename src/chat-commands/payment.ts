import type { BusinessRow } from '../businesses/repository.js';
import type { TransactionService } from '../transactions/service.js';
import type { PaymentMethod } from './parser.js';
import type { OpenDue } from './repository.js';

export interface AppliedPayment {
  due: OpenDue;
  /** what was recorded against the due */
  paise: number;
  /** true when it paid the due's whole balance */
  settles: boolean;
}

export interface ChatPaymentResult {
  /** the payments recorded, oldest due first */
  applied: AppliedPayment[];
  /** recording a payment on a later due failed after earlier ones were recorded: those stay */
  failed: null | { paise: number; error: unknown };
}

/**
 * `paid <name> [<amount>]` (PRODUCT part 15): the amount goes to the contact's open dues oldest
 * first, each getting what is left of the amount up to its balance, recorded as a payment with
 * `source: chat` (PRODUCT part 10: the settling one emits transaction.paid, a part payment
 * transaction.updated; totals and reminders follow, each in the service's own database
 * transaction). Without an amount every open due is settled.
 *
 * A failure before anything was recorded is thrown (the command did nothing and may be retried);
 * one after some payments were recorded is returned, so that the owner is told exactly what was
 * recorded and a retry of the message cannot apply the same amount twice.
 */
export async function applyChatPayment(
  transactions: TransactionService,
  business: BusinessRow,
  dues: OpenDue[],
  amountPaise: number | null,
  method: PaymentMethod | null,
): Promise<ChatPaymentResult> {
  const applied: AppliedPayment[] = [];
  let remaining = amountPaise ?? dues.reduce((sum, d) => sum + d.balance_paise, 0);
  for (const due of dues) {
    if (remaining === 0) break;
    const paise = Math.min(remaining, due.balance_paise);
    try {
      await transactions.recordPayment(business, due.id, {
        amountPaise: paise,
        utr: null,
        paymentMethod: method ?? 'other',
        source: 'chat',
      });
    } catch (error) {
      if (applied.length === 0) throw error;
      return { applied, failed: { paise: remaining, error } };
    }
    applied.push({ due, paise, settles: paise === due.balance_paise });
    remaining -= paise;
  }
  return { applied, failed: null };
}
