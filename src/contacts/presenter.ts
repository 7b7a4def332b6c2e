import type { ContactRow } from './repository.js';
import type { ContactResponse, ContactWithBalancesResponse } from './schema.js';
import type { ContactStanding } from './service.js';

/** The buyer's account page (PRODUCT part 18); null only for a row written without a token (bench seeds). */
export function accountUrl(publicBaseUrl: string, token: string | null): string | null {
  return token === null ? null : `${publicBaseUrl}/a/${token}`;
}

/** The kept account figures every contact shape carries (the row's own columns: no read of its history). */
function account(row: ContactRow, publicBaseUrl: string) {
  return {
    credit_paise: Number(row.credit_paise),
    balance_paise: Number(row.balance_paise),
    account_url: accountUrl(publicBaseUrl, row.account_token),
    payment_reference: row.payment_reference ?? null,
    language: row.language,
    assigned_to: row.assigned_to,
  };
}

export function presentContact(
  row: ContactRow,
  standing: Pick<ContactStanding, 'riskFlag'>,
  publicBaseUrl: string,
): ContactResponse {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    risk_flag: standing.riskFlag,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...account(row, publicBaseUrl),
  };
}

export function presentContactWithBalances(
  row: ContactRow,
  s: ContactStanding,
  publicBaseUrl: string,
): ContactWithBalancesResponse {
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
    ...account(row, publicBaseUrl),
  };
}
