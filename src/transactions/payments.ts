import { recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import { addSettledDue } from '../contacts/score-sums.js';
import type { Executor, PaymentTable, ReceiptTable } from '../db/schema.js';
import type { TotalsDeltas } from '../db/totals-deltas.js';
import { nextUpdatedAt } from '../db/updated-at.js';
import { errors } from '../errors.js';
import { localDate, localMonth } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import { type OutboxEvent, recordEvent, recordEvents } from '../outbox/events.js';
import { cancelForPaidDue } from '../reminder-schedule/schedule.js';
import * as aggregates from '../totals/aggregates.js';
import { receiptRecordedEntries } from './audit.js';
import { balanceOf } from './domain.js';
import { openDue } from './live-due.js';
import { transactionEventData, transactionPaidEventData } from './presenter.js';
import { insertReceipt } from './receipt-repository.js';
import * as repo from './repository.js';
import type { PAYMENT_SOURCES } from './schema.js';

export type PaymentSource = (typeof PAYMENT_SOURCES)[number];

export interface PaymentInput {
  amountPaise: number;
  utr?: string | null | undefined;
  /** upi, cash, bank_transfer, card, other; default api */
  paymentMethod?: string | undefined;
  source: PaymentSource;
  /** the claim this money confirms: a receipt per claim at most (receipts.claim_id is unique) */
  claimId?: string | undefined;
}

export interface RecordedPayment {
  payment: PaymentTable;
  transaction: repo.TransactionView;
}

/** Sources where the buyer paid (pay page claim, gateway, a bank credit): SPEC part 6's payment.received. */
export const BUYER_SOURCES: readonly PaymentSource[] = ['claim', 'gateway', 'bank'];

/**
 * Records one payment of a due inside the caller's transaction (PRODUCT part 10-11): a receipt of
 * the due's contact with one allocation (receipts/), and their audit entries (receipt.recorded,
 * then transaction.paid or part_paid). The due is locked first, so concurrent
 * payments queue and the balance check sees every earlier one: part payments that together exceed
 * the balance never overpay.
 */
export async function recordPaymentIn(
  trx: Executor,
  business: BusinessRow,
  transactionId: string,
  input: PaymentInput,
  now: Date,
): Promise<RecordedPayment> {
  const current = openDue(await repo.lockTransaction(trx, business.id, transactionId));
  const balance = balanceOf(current);
  if (input.amountPaise > balance) {
    throw errors.invalid('amount_paise', `amount_paise must not exceed the balance of ${balance}`);
  }
  const receipt = { ...newReceipt(business, current.contact_id, input, now), applied_paise: input.amountPaise };
  await insertReceipt(trx, receipt);
  const recorded = await applyToDue(trx, business, current, { ...input, receiptId: receipt.id, money: true }, now);
  await recordAudit(
    trx,
    business.id,
    now,
    receiptRecordedEntries(receipt, [{ before: current, after: recorded.transaction }]),
  );
  return recorded;
}

/** A receipt row of `input` as of `now`, before its allocations are known. */
export function newReceipt(
  business: BusinessRow,
  contactId: string,
  input: PaymentInput & { receivedOn?: string | undefined },
  now: Date,
): ReceiptTable {
  return {
    id: uuidv7(now.getTime()),
    business_id: business.id,
    contact_id: contactId,
    amount_paise: input.amountPaise,
    applied_paise: 0,
    credit_paise: 0,
    utr: input.utr ?? null,
    payment_method: input.paymentMethod ?? 'api',
    source: input.source,
    received_on: input.receivedOn ?? localDate(business.timezone, now),
    created_at: now.toISOString(),
    reversed_at: null,
    reversal_reason: null,
    ...(input.claimId !== undefined && { claim_id: input.claimId }),
  };
}

/** One allocation of a receipt to a due, as applyToDue writes it. */
export interface AllocationInput extends Omit<PaymentInput, 'source'> {
  source: PaymentSource | 'credit';
  receiptId: string;
  /** whether it is money received now (false: credit received earlier, already counted then) */
  money: boolean;
}

/** What one allocation does to a locked due, computed (applyToDue writes one; a receipt batch many at once). */
export interface PlannedAllocation {
  payment: PaymentTable;
  /** the due's changed columns */
  change: Partial<repo.StoredTransaction>;
  /** the due after it */
  transaction: repo.TransactionView;
  settles: boolean;
  deltas: TotalsDeltas;
  /** transaction.paid (settles) or transaction.updated, then payment.received when the buyer paid */
  events: OutboxEvent[];
}

/**
 * One allocation on a due locked (and checked open, with the amount within its balance) by the
 * caller, as rows, totals deltas and events: the payment row, the due's amount paid (and status,
 * paid_at, utr, method when it settles), and the events.
 */
export function planAllocation(
  business: BusinessRow,
  current: repo.TransactionView,
  input: AllocationInput,
  now: Date,
): PlannedAllocation {
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
    receipt_id: input.receiptId,
    reversed_at: null,
  };
  const settles = input.amountPaise === balanceOf(current);
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
  const transaction: repo.TransactionView = { ...current, ...change };
  const deltas = aggregates.paymentDeltas({
    businessId: business.id,
    fromStatus: current.status as 'pending' | 'overdue',
    dueDate: current.due_date,
    paise: input.amountPaise,
    settles,
    amountPaise: Number(current.amount_paise),
    month: localMonth(business.timezone, now),
    moneyPaise: input.money ? input.amountPaise : 0,
  });
  const events = [balanceChangeEvent(business, transaction, settles, now)];
  if (BUYER_SOURCES.includes(payment.source as PaymentSource)) {
    events.push({
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
  return { payment, change, transaction, settles, deltas, events };
}

/**
 * Writes one allocation (planAllocation). Everything moves together: the payment row, the due,
 * the running totals, the contact's payment score sums (when it settles), the reminders, and the
 * events. The contact's kept balance follows the due through the store's trigger.
 */
export async function applyToDue(
  trx: Executor,
  business: BusinessRow,
  current: repo.TransactionView,
  input: AllocationInput,
  now: Date,
): Promise<RecordedPayment> {
  const plan = planAllocation(business, current, input, now);
  await repo.updateTransaction(trx, business.id, current.id, plan.change);
  await repo.insertPayment(trx, plan.payment);
  await aggregates.applyAll(trx, business.id, [plan.deltas]);
  if (plan.settles) await settledDue(trx, business, plan.transaction, now);
  await recordEvents(trx, plan.events);
  return { payment: plan.payment, transaction: plan.transaction };
}

/** transaction.paid for a due its balance change settles, else transaction.updated. */
export function balanceChangeEvent(
  business: BusinessRow,
  transaction: repo.TransactionView,
  settles: boolean,
  now: Date,
): OutboxEvent {
  return settles
    ? { businessId: business.id, type: 'transaction.paid', data: transactionPaidEventData(transaction), at: now }
    : {
        businessId: business.id,
        type: 'transaction.updated',
        data: transactionEventData(transaction, localDate(business.timezone, now)),
        at: now,
      };
}

/** A settled due: its contact's score sums take it in, its reminders are cancelled. */
async function settledDue(trx: Executor, business: BusinessRow, transaction: repo.TransactionView, now: Date) {
  await addSettledDue(trx, business, transaction, transaction.paid_at ?? now.toISOString());
  await cancelForPaidDue(trx, transaction.id, now);
}

/**
 * What follows a due's balance going down (an adjustment): when it is settled, its contact's score
 * sums and its reminders cancelled; the event (balanceChangeEvent).
 */
export async function afterBalanceChange(
  trx: Executor,
  business: BusinessRow,
  transaction: repo.TransactionView,
  settles: boolean,
  now: Date,
): Promise<void> {
  if (settles) await settledDue(trx, business, transaction, now);
  await recordEvent(trx, balanceChangeEvent(business, transaction, settles, now));
}
