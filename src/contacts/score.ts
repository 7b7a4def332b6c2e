import { daysBetween } from '../lib/dates.js';

/**
 * Payment score, 0-100, after Dun & Bradstreet's PAYDEX: each due scores by how late it was
 * paid, and the score is the average weighted by amount and recency.
 *
 * - Days late -> score, linear between these points: paid 7+ days early 100, on the due date 80,
 *   15 days late 70, 22 days 60, 30 days 50, 60 days 40, 90 days 30, 120 days 20, 180 days 10,
 *   a year or more 0.
 * - A paid due counts with the days between its due date and the day it was paid (business time
 *   zone). An open due past its date counts with the days it has been overdue so far, so the
 *   score falls while a buyer is late, not only once they pay. Open dues not yet due do not count.
 * - Weight = amount x recency, recency halving every 180 days of due-date age, so recent
 *   behaviour dominates and big dues matter more than small ones.
 * - A broken promise to pay (PRODUCT part 13: not paid by the end of the promised day) counts
 *   once more, as a due of the same amount that fell due on the promised date and is as late
 *   as the payment came (or is still outstanding) after it.
 * - No scored dues: 100.
 *
 * Risk flag: high when the score is below 50 or an open due is 60+ days overdue; medium when the
 * score is below 70 or an open due is 15+ days overdue; low otherwise.
 */

const CURVE: ReadonlyArray<readonly [number, number]> = [
  [-7, 100],
  [0, 80],
  [15, 70],
  [22, 60],
  [30, 50],
  [60, 40],
  [90, 30],
  [120, 20],
  [180, 10],
  [365, 0],
];

export function scoreForDaysLate(daysLate: number): number {
  const first = CURVE[0] as readonly [number, number];
  const last = CURVE[CURVE.length - 1] as readonly [number, number];
  if (daysLate <= first[0]) return first[1];
  if (daysLate >= last[0]) return last[1];
  for (let i = 1; i < CURVE.length; i++) {
    const [x1, y1] = CURVE[i] as readonly [number, number];
    const [x0, y0] = CURVE[i - 1] as readonly [number, number];
    if (daysLate <= x1) return y0 + ((y1 - y0) * (daysLate - x0)) / (x1 - x0);
  }
  return last[1];
}

export interface ScoredDue {
  amountPaise: number;
  dueDate: string;
  /** business-local date the due was paid, or null while open */
  paidDate: string | null;
  /** the date the buyer promised to pay by, if they did */
  promiseDate?: string | null;
}

export type RiskFlag = 'low' | 'medium' | 'high';

const HALF_LIFE_DAYS = 180;

/** A broken promise scores as a due on the promised date: one more entry, paid (or open) as the due was. */
function withBrokenPromises(dues: readonly ScoredDue[], today: string): ScoredDue[] {
  const all = [...dues];
  for (const due of dues) {
    const promised = due.promiseDate;
    if (promised === null || promised === undefined) continue;
    if ((due.paidDate ?? today) > promised) all.push({ ...due, dueDate: promised, promiseDate: null });
  }
  return all;
}

export function paymentScore(dues: readonly ScoredDue[], today: string): number {
  let weighted = 0;
  let weights = 0;
  for (const due of withBrokenPromises(dues, today)) {
    let daysLate: number;
    if (due.paidDate !== null) daysLate = daysBetween(due.dueDate, due.paidDate);
    else if (due.dueDate < today) daysLate = daysBetween(due.dueDate, today);
    else continue;
    const age = Math.max(0, daysBetween(due.dueDate, today));
    const weight = due.amountPaise * 0.5 ** (age / HALF_LIFE_DAYS);
    weighted += weight * scoreForDaysLate(daysLate);
    weights += weight;
  }
  if (weights === 0) return 100;
  return Math.round(weighted / weights);
}

export function riskFlag(score: number, maxDaysOverdue: number): RiskFlag {
  if (score < 50 || maxDaysOverdue >= 60) return 'high';
  if (score < 70 || maxDaysOverdue >= 15) return 'medium';
  return 'low';
}
