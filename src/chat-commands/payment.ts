import type { BusinessRow } from '../businesses/repository.js';
import type { Trx } from '../db/schema.js';
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

/**
 * `paid <name> [<amount>]` (PRODUCT part 15): the amount goes to the contact's open dues oldest
 * first, each getting what is left of the amount up to its balance, recorded as a payment with
 * `source: chat` (PRODUCT part 10: the settling one emits transaction.paid, a part payment
 * transaction.updated; totals and reminders follow). Without an amount every open due is settled.
 * Every payment is recorded in the caller's transaction: a failure on any due rolls back them all.
 */
export async function applyChatPayment(
  trx: Trx,
  transactions: TransactionService,
  business: BusinessRow,
  dues: OpenDue[],
  amountPaise: number | null,
  method: PaymentMethod | null,
): Promise<AppliedPayment[]> {
  const applied: AppliedPayment[] = [];
  let remaining = amountPaise ?? dues.reduce((sum, d) => sum + d.balance_paise, 0);
  for (const due of dues) {
    if (remaining === 0) break;
    const paise = Math.min(remaining, due.balance_paise);
    await transactions.recordPaymentIn(trx, business, due.id, {
      amountPaise: paise,
      utr: null,
      paymentMethod: method ?? 'other',
      source: 'chat',
    });
    applied.push({ due, paise, settles: paise === due.balance_paise });
    remaining -= paise;
  }
  return applied;
}
