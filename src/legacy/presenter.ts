import type { ContactRow } from '../contacts/repository.js';
import type { ContactStanding } from '../contacts/service.js';
import type { Totals } from '../totals/read.js';
import { effectiveStatus, outstandingOfTotals } from '../transactions/domain.js';
import type { TransactionView } from '../transactions/repository.js';
import type { LegacyContactResponse, LegacySummaryResponse, LegacyTransactionResponse } from './schema.js';

/** PRODUCT part 7: phones carry a leading + in this shape (stored as digits only). */
function withPlus(phone: string | null): string | null {
  return phone === null ? null : `+${phone}`;
}

export function presentLegacyTransaction(row: TransactionView, today: string): LegacyTransactionResponse {
  return {
    id: row.id,
    contactName: row.contact_name,
    contactPhone: withPlus(row.contact_phone),
    amountPaise: Number(row.amount_paise),
    dueDate: row.due_date,
    status: effectiveStatus(row, today),
    paidAt: row.paid_at,
    createdAt: row.created_at,
    paymentRef: row.utr,
    reminderCount: row.reminder_count,
    claimCount: row.claim_count,
  };
}

export function presentLegacyContact(row: ContactRow, standing: ContactStanding): LegacyContactResponse {
  return {
    id: row.id,
    name: row.name,
    phone: withPlus(row.phone),
    outstandingPaise: standing.outstandingPaise,
    paymentScore: standing.paymentScore,
    totalTransactions: standing.totalTransactions,
    createdAt: row.created_at,
  };
}

export function presentLegacySummary(t: Totals, currency: string): LegacySummaryResponse {
  return {
    overdue: t.overdue,
    pending: t.pending,
    paid: t.paid,
    totalOutstandingPaise: outstandingOfTotals(t),
    contactCount: t.contactCount,
    currencyCode: currency,
  };
}
