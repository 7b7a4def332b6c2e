import type { TransactionTable } from '../db/schema.js';
import { addDays, dateAfter, localDate, MAX_YEAR } from '../lib/dates.js';

/**
 * The rules of a due that every presenter (/v1, /legacy, the pay page, events) shares: its
 * status as read, its balance, its pay page address and its recurrence. No HTTP, no SQL.
 */

type DueStatus = Pick<TransactionTable, 'status' | 'due_date'>;

/** SPEC part 2: a stored-pending due whose date has passed reads as overdue. */
export function effectiveStatus(row: DueStatus, today: string): string {
  return row.status === 'pending' && row.due_date < today ? 'overdue' : row.status;
}

/** The status a due should be stored with once its date or balance changes (the sweeper's rule, applied at once). */
export function storedOpenStatus(dueDate: string, today: string): 'pending' | 'overdue' {
  return dueDate < today ? 'overdue' : 'pending';
}

export function payPageUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/pay/${token}`;
}

/** What is still owed on a due: its amount less its payments and its adjustments. */
export function balanceOf(row: {
  amount_paise: number | string;
  amount_paid_paise: number | string;
  amount_adjusted_paise?: number | string | undefined;
}): number {
  return Number(row.amount_paise) - Number(row.amount_paid_paise) - Number(row.amount_adjusted_paise ?? 0);
}

/** What a set of dues still owes: the balances of the open ones (paid and deleted ones owe nothing). */
export function outstandingOf(
  rows: readonly {
    open: number;
    amount_paise: number | string;
    amount_paid_paise: number | string;
    amount_adjusted_paise?: number | string;
  }[],
): number {
  return rows.reduce((sum, r) => (r.open === 1 ? sum + balanceOf(r) : sum), 0);
}

export const RECURRENCE_INTERVALS = ['weekly', 'monthly'] as const;
export interface Recurrence {
  interval: (typeof RECURRENCE_INTERVALS)[number];
  until: string | null;
}

export function parseRecurrence(stored: string | null): Recurrence | null {
  return stored === null ? null : (JSON.parse(stored) as Recurrence);
}

export function storeRecurrence(recurrence: Recurrence | null): string | null {
  return recurrence === null ? null : JSON.stringify({ interval: recurrence.interval, until: recurrence.until });
}

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The date of the next due of a series: one week later, or one calendar month later on the
 * series' day of the month (`anchorDay`, the first due's day), clamped to the month's last day, so
 * that 31 Jan, 28 Feb, 31 Mar follow each other. Null after 9999-12-31: the series ends there.
 */
export function nextDueDate(current: string, interval: Recurrence['interval'], anchorDay: number): string | null {
  if (interval === 'weekly') return dateAfter(current, 7);
  const [y, m] = current.split('-').map(Number) as [number, number];
  const year = m === 12 ? y + 1 : y;
  if (year > MAX_YEAR) return null;
  const month = m === 12 ? 1 : m + 1;
  const day = Math.min(anchorDay, lastDayOfMonth(year, month));
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * PRODUCT part 26: a series may start at most this many days before today. Its catch-up writes one
 * due per week or month since its first date, so an older one would be a request of unbounded work.
 */
export const SERIES_PAST_DAYS = 366;

/** The earliest date a repeating due may have, or null when `dueDate` is recent enough. */
export function seriesStartTooOld(dueDate: string, today: string): string | null {
  const earliest = addDays(today, -SERIES_PAST_DAYS);
  return dueDate < earliest ? earliest : null;
}

/** Whether a series still has a due on `next` (`until` is the last date it may take, inclusive). */
export function nextWithin(recurrence: Recurrence, next: string): boolean {
  return recurrence.until === null || next <= recurrence.until;
}

/** SPEC part 2: outstanding = pending + overdue (both already balances, PRODUCT part 10). */
export function outstandingOfTotals(t: { pending: { paise: number }; overdue: { paise: number } }): number {
  return t.pending.paise + t.overdue.paise;
}

/**
 * PRODUCT part 13: a promise to pay is kept when the due is paid in full by the end of the promised
 * day (business time zone), broken when that day ends first; null until then.
 */
export function promiseKept(
  row: Pick<TransactionTable, 'status' | 'paid_at'> & { promise_date: string | null },
  timezone: string,
  today: string,
): boolean | null {
  if (row.promise_date === null) return null;
  if (row.status === 'paid' && row.paid_at !== null) {
    return localDate(timezone, new Date(row.paid_at)) <= row.promise_date;
  }
  return today > row.promise_date ? false : null;
}
