import type { ContactRow } from './repository.js';
import type { ContactResponse, ContactWithBalancesResponse } from './schema.js';
import type { ContactStanding } from './service.js';

export function presentContact(row: ContactRow, standing: Pick<ContactStanding, 'riskFlag'>): ContactResponse {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    risk_flag: standing.riskFlag,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentContactWithBalances(row: ContactRow, s: ContactStanding): ContactWithBalancesResponse {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    risk_flag: s.riskFlag,
    created_at: row.created_at,
    updated_at: row.updated_at,
    payment_score: s.paymentScore,
    outstanding_paise: s.outstandingPaise,
    pending_count: s.pendingCount,
    overdue_count: s.overdueCount,
    total_transactions: s.totalTransactions,
    reminders_paused: row.reminders_paused === 1,
  };
}
