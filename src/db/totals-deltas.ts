/**
 * What a change does to a business's running totals (totals/aggregates.ts computes them; the
 * store's adapter writes them: db/port.ts applyTotals). Negative to take away; days: each date at
 * most once.
 */
export const TOTALS_COLUMNS = [
  'pending_count',
  'pending_paise',
  'overdue_count',
  'overdue_paise',
  'paid_count',
  'paid_paise',
  'contact_count',
  'credit_paise',
] as const;
export type TotalsColumn = (typeof TOTALS_COLUMNS)[number];

export interface DayDelta {
  dueDate: string;
  count: number;
  paise: number;
}

export interface TotalsDeltas {
  totals: Partial<Record<TotalsColumn, number>>;
  pendingDays?: readonly DayDelta[];
  openDays?: readonly DayDelta[];
  paidMonth?: { month: string; count: number; paise: number };
}
