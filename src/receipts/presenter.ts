import type { PaymentTable, ReceiptTable } from '../db/schema.js';
import type { ReceiptResponse } from './schema.js';

/** A receipt with its allocations (its payments, credit uses included, reversed ones too). */
export function presentReceipt(row: ReceiptTable, allocations: readonly PaymentTable[]): ReceiptResponse {
  return {
    id: row.id,
    contact_id: row.contact_id,
    amount_paise: Number(row.amount_paise),
    applied_paise: Number(row.applied_paise),
    credit_paise: Number(row.credit_paise),
    utr: row.utr,
    payment_method: row.payment_method,
    source: row.source,
    received_on: row.received_on,
    created_at: row.created_at,
    reversed_at: row.reversed_at,
    allocations: allocations
      .filter((a) => a.receipt_id === row.id)
      .map((a) => ({ transaction_id: a.transaction_id, amount_paise: Number(a.amount_paise) })),
  };
}
