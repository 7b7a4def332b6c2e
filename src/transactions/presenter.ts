import { dateToTimestamp } from '../lib/dates.js';
import type { TransactionView } from './repository.js';
import type { TransactionResponse } from './schema.js';

/** SPEC part 2: a stored-pending due whose date has passed reads as overdue. */
export function effectiveStatus(row: Pick<TransactionView, 'status' | 'due_date'>, today: string): string {
  return row.status === 'pending' && row.due_date < today ? 'overdue' : row.status;
}

export function payPageUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/pay/${token}`;
}

export function presentTransaction(
  row: TransactionView,
  ctx: { today: string; publicBaseUrl: string },
): TransactionResponse {
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
    recurrence: null,
    reminder_count: row.reminder_count,
    pay_page_url: payPageUrl(ctx.publicBaseUrl, row.pay_token),
    created_at: row.created_at,
    updated_at: row.updated_at,
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
