import type { Totals } from '../totals/read.js';
import { outstandingOfTotals } from '../transactions/domain.js';
import type { SummaryResponse } from './schema.js';

/** GET /v1/summary: balances still owed by state, what paid dues were for, money received this month. */
export function presentSummary(t: Totals, currency: string): SummaryResponse {
  return {
    currency,
    overdue: t.overdue,
    pending: t.pending,
    paid: t.paid,
    paid_this_month_paise: t.paidThisMonthPaise,
    total_outstanding_paise: outstandingOfTotals(t),
    contact_count: t.contactCount,
    credit_paise: t.creditPaise,
  };
}
