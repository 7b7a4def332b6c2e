import { dateToTimestamp } from '../lib/dates.js';
import { balanceOf, effectiveStatus, parseRecurrence, payPageUrl, promiseKept } from './domain.js';
import type { TransactionView } from './repository.js';
import type { PaymentResponse, TransactionResponse } from './schema.js';

/** Kept for callers written before the rules moved to domain.ts; import them from there. */
export { effectiveStatus, payPageUrl } from './domain.js';

export function presentTransaction(
  row: TransactionView,
  ctx: { today: string; publicBaseUrl: string; timezone: string },
): TransactionResponse {
  const recurrence = parseRecurrence(row.recurrence);
  return {
    id: row.id,
    contact_id: row.contact_id,
    contact_name: row.contact_name,
    contact_phone: row.contact_phone,
    amount_paise: Number(row.amount_paise),
    currency: row.currency,
    status: effectiveStatus(row, ctx.today),
    direction: row.direction,
    due_date: dateToTimestamp(row.due_date),
    paid_at: row.paid_at,
    utr: row.utr,
    payment_method: row.payment_method,
    invoice_number: row.invoice_number,
    notes: row.notes,
    recurrence: recurrence && { interval: recurrence.interval, until: recurrence.until },
    series_id: row.series_id,
    reminders_paused: row.reminders_paused === 1,
    promise:
      row.promise_date === null
        ? null
        : {
            date: row.promise_date,
            made_at: row.promise_made_at ?? row.updated_at,
            kept: promiseKept(row, ctx.timezone, ctx.today),
          },
    amount_paid_paise: Number(row.amount_paid_paise),
    amount_adjusted_paise: Number(row.amount_adjusted_paise ?? 0),
    balance_paise: balanceOf(row),
    deleted_at: row.deleted_at,
    reminder_count: row.reminder_count,
    pay_page_url: payPageUrl(ctx.publicBaseUrl, row.pay_token),
    payment_reference: row.payment_reference ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentPayment(row: {
  id: string;
  transaction_id: string;
  amount_paise: number | string;
  utr: string | null;
  payment_method: string;
  source: string;
  created_at: string;
}): PaymentResponse {
  return {
    id: row.id,
    transaction_id: row.transaction_id,
    amount_paise: Number(row.amount_paise),
    utr: row.utr,
    payment_method: row.payment_method,
    source: row.source,
    created_at: row.created_at,
  };
}

/** The `data` of transaction.* events (PRODUCT part 5). */
export function transactionEventData(row: TransactionView, today: string) {
  return {
    id: row.id,
    contactId: row.contact_id,
    contactName: row.contact_name,
    contactPhone: row.contact_phone,
    amountPaise: Number(row.amount_paise),
    currency: row.currency,
    status: effectiveStatus(row, today),
    dueDate: row.due_date,
    invoiceNumber: row.invoice_number,
    notes: row.notes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The `data` of transaction.paid: SPEC part 6's fields plus paymentMethod (PRODUCT part 5). */
export function transactionPaidEventData(row: TransactionView) {
  return {
    id: row.id,
    contactName: row.contact_name,
    amountPaise: Number(row.amount_paise),
    paidAt: row.paid_at,
    paymentRef: row.utr,
    paymentMethod: row.payment_method,
  };
}
