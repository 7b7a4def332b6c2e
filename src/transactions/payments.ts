import type { BusinessRow } from '../businesses/repository.js';
import { addSettledDue } from '../contacts/score-sums.js';
import type { Executor, PaymentTable } from '../db/schema.js';
import { nextUpdatedAt } from '../db/updated-at.js';
import { errors } from '../errors.js';
import { localDate, localMonth } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import { recordEvent } from '../outbox/events.js';
import { cancelForPaidDue } from '../reminder-schedule/schedule.js';
import * as aggregates from '../totals/aggregates.js';
import { balanceOf } from './domain.js';
import { transactionEventData, transactionPaidEventData } from './presenter.js';
import * as repo from './repository.js';
import type { PAYMENT_SOURCES } from './schema.js';

export type PaymentSource = (typeof PAYMENT_SOURCES)[number];

export interface PaymentInput {
  amountPaise: number;
  utr?: string | null | undefined;
  /** upi, cash, bank_transfer, card, other; default api */
  paymentMethod?: string | undefined;
  source: PaymentSource;
}

export interface RecordedPayment {
  payment: PaymentTable;
  transaction: repo.TransactionView;
}

/** Sources where the buyer paid (pay page claim, gateway): SPEC part 6's payment.received. */
const BUYER_SOURCES: readonly PaymentSource[] = ['claim', 'gateway'];

/**
 * Records one payment of a due inside the caller's transaction (PRODUCT part 10-11). The due is
 * locked first, so concurrent payments queue and the balance check sees every earlier one: part
 * payments that together exceed the balance never overpay. Everything moves together: the
 * payment row, the due's amount paid (and status, paid_at, utr, method when it settles), the
 * running totals, the contact's payment score sums (when it settles), the reminders, and the events (transaction.updated for a part payment,
 * transaction.paid for the settling one, payment.received when the buyer paid).
 */
export async function recordPaymentIn(
  trx: Executor,
  business: BusinessRow,
  transactionId: string,
  input: PaymentInput,
  now: Date,
): Promise<RecordedPayment> {
  const current = await repo.lockTransaction(trx, business.id, transactionId);
  if (!current) throw errors.notFound('transaction');
  if (current.deleted_at !== null) throw errors.conflict('transaction is deleted');
  if (current.status === 'paid') throw errors.conflict('transaction is already paid');
  const balance = balanceOf(current);
  if (input.amountPaise > balance) {
    throw errors.invalid('amount_paise', `amount_paise must not exceed the balance of ${balance}`);
  }
  const at = now.toISOString();
  const payment: PaymentTable = {
    id: uuidv7(now.getTime()),
    business_id: business.id,
    transaction_id: current.id,
    amount_paise: input.amountPaise,
    utr: input.utr ?? null,
    payment_method: input.paymentMethod ?? 'api',
    source: input.source,
    created_at: at,
  };
  const settles = input.amountPaise === balance;
  const change: Partial<repo.StoredTransaction> = {
    amount_paid_paise: Number(current.amount_paid_paise) + input.amountPaise,
    updated_at: nextUpdatedAt(current.updated_at, now),
    ...(settles && {
      status: 'paid',
      open: 0,
      paid_at: at,
      utr: payment.utr,
      payment_method: payment.payment_method,
    }),
  };
  await repo.updateTransaction(trx, business.id, current.id, change);
  await repo.insertPayment(trx, payment);
  await aggregates.applyPayment(trx, {
    businessId: business.id,
    fromStatus: current.status as 'pending' | 'overdue',
    dueDate: current.due_date,
    paise: input.amountPaise,
    settles,
    amountPaise: Number(current.amount_paise),
    month: localMonth(business.timezone, now),
  });
  const transaction: repo.TransactionView = { ...current, ...change };
  if (settles) {
    await addSettledDue(trx, business, transaction, at);
    await cancelForPaidDue(trx, current.id, now);
    await recordEvent(trx, {
      businessId: business.id,
      type: 'transaction.paid',
      data: transactionPaidEventData(transaction),
      at: now,
    });
  } else {
    await recordEvent(trx, {
      businessId: business.id,
      type: 'transaction.updated',
      data: transactionEventData(transaction, localDate(business.timezone, now)),
      at: now,
    });
  }
  if (BUYER_SOURCES.includes(payment.source as PaymentSource)) {
    await recordEvent(trx, {
      businessId: business.id,
      type: 'payment.received',
      data: {
        transactionId: transaction.id,
        amountPaise: payment.amount_paise,
        paidAt: at,
        paymentRef: payment.utr,
        paymentMethod: payment.payment_method,
      },
      at: now,
    });
  }
  return { payment, transaction };
}
