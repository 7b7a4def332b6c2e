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
 * `paid <name> [<amount>]` (PRODUCT part 15): one receipt of the contact (`source: chat`), which
 * goes to the contact's open dues oldest first, each getting what is left of the amount up to its
 * balance (PRODUCT part 10: the settling one emits transaction.paid, a part payment
 * transaction.updated; totals and reminders follow). Without an amount every open due is settled.
 * Every payment is recorded in the caller's transaction: a failure on any due rolls back them all.
 */
export async function applyChatPayment(
  trx: Trx,
  transactions: TransactionService,
  business: BusinessRow,
  contactId: string,
  dues: OpenDue[],
  amountPaise: number | null,
  method: PaymentMethod | null,
): Promise<AppliedPayment[]> {
  if (dues.length === 0) return [];
  const total = amountPaise ?? dues.reduce((sum, d) => sum + d.balance_paise, 0);
  // One receipt of the contact: its allocation is the same oldest-first order as `dues`.
  const { allocations } = await transactions.recordReceiptIn(trx, business, contactId, {
    amountPaise: total,
    utr: null,
    paymentMethod: method ?? 'other',
    source: 'chat',
  });
  const byId = new Map(dues.map((d) => [d.id, d]));
  return allocations.flatMap((a) => {
    const due = byId.get(a.transaction_id);
    const paise = Number(a.amount_paise);
    return due ? [{ due, paise, settles: paise === due.balance_paise }] : [];
  });
}
