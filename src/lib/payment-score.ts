import { daysBetween } from './dates.js';

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
 * - Every paid due of the contact counts (issue 18; it was the 200 most recent dues before): the
 *   paid part is kept as running sums (below), and old dues fade through the recency weight.
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

/**
 * Whether the day a due dated `dueDate` was paid can change its score, given that it was paid by
 * `today` (a paid due's paid_at is never later): a due paid 7 or more days before its date scores
 * 100 whatever the day. A read that scores dues paid ahead of their date skips working out their
 * paid dates (a time-zone conversion each) where it cannot matter.
 */
export function paidDateMatters(dueDate: string, today: string): boolean {
  return daysBetween(today, dueDate) < -(CURVE[0] as readonly [number, number])[0];
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

/** The payment score of these dues as of `today` (the definition above; rounded to a whole number). */
export function paymentScore(dues: readonly ScoredDue[], today: string): number {
  return Math.round(unroundedPaymentScore(dues, today));
}

/** paymentScore before rounding (tests compare the kept sums with it). */
export function unroundedPaymentScore(dues: readonly ScoredDue[], today: string): number {
  const { weighted, weights } = weightedSums(dues, today);
  if (weights === 0) return 100;
  return weighted / weights;
}

/**
 * The weighted average's two sums over these dues as of `today`, a broken promise counting once
 * more as a due of the same amount that fell due on the promised date, paid (or open) as the due
 * is. Dates as day numbers, each parsed once (a contact read scores its open overdue dues here).
 */
function weightedSums(dues: readonly ScoredDue[], today: string): { weighted: number; weights: number } {
  const todayDay = dayNumber(today);
  let weighted = 0;
  let weights = 0;
  const add = (amount: number, day: number, paidDay: number | null) => {
    let daysLate: number;
    if (paidDay !== null) daysLate = paidDay - day;
    else if (day < todayDay) daysLate = todayDay - day;
    else return;
    const weight = amount * 0.5 ** (Math.max(0, todayDay - day) / HALF_LIFE_DAYS);
    weighted += weight * scoreForDaysLate(daysLate);
    weights += weight;
  };
  for (const due of dues) {
    const paidDay = due.paidDate === null ? null : dayNumber(due.paidDate);
    add(due.amountPaise, dayNumber(due.dueDate), paidDay);
    const promised = due.promiseDate;
    if (promised !== null && promised !== undefined && (due.paidDate ?? today) > promised) {
      add(due.amountPaise, dayNumber(promised), paidDay);
    }
  }
  return { weighted, weights };
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD date. */
export function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

/**
 * Issue 18: what the paid dues add to the score, kept per contact (`contact_scores`) in the
 * transaction that settles each due, so a read does not walk the contact's history.
 *
 * A due's weight is amount x 2^(-(today - dueDate)/180), and 2^(-today/180) is common to every
 * term of the weighted average: it cancels. So the sums hold amount x 2^((dueDate - epoch)/180)
 * (x score for `weighted`), `epoch` being the latest date summed (day number): every factor is at
 * most 1 (no overflow whatever the dates, 1900-9999), and a later date rescales the older terms.
 * A paid due never changes afterwards (PATCH, DELETE and payments refuse paid dues; the business's
 * time zone is fixed), so the sums only grow. Its broken promise is one more
 * term, added at the same time. Only a paid due dated after today reads differently (its age is
 * taken as 0, not negative): the read takes such dues' terms out again (paymentScoreFromSums).
 */
export interface PaidSums {
  epochDay: number;
  weighted: number;
  weights: number;
  /** how many terms were summed (dues and broken promises) */
  terms: number;
}

/** One term of the weighted average: a due (or a broken promise) as the score counts it. */
interface Term {
  day: number;
  amount: number;
  score: number;
}

/** The terms of one paid due (`paidDate` set): itself, and its promise if it was broken. */
function paidTerms(due: ScoredDue): Term[] {
  const paid = due.paidDate as string;
  const terms: Term[] = [
    { day: dayNumber(due.dueDate), amount: due.amountPaise, score: scoreForDaysLate(daysBetween(due.dueDate, paid)) },
  ];
  const promised = due.promiseDate;
  if (promised !== null && promised !== undefined && paid > promised) {
    terms.push({
      day: dayNumber(promised),
      amount: due.amountPaise,
      score: scoreForDaysLate(daysBetween(promised, paid)),
    });
  }
  return terms;
}

/** The sums of some terms, relative to the latest of their days. */
function sumsOf(terms: readonly Term[]): PaidSums {
  const epochDay = Math.max(...terms.map((t) => t.day));
  let weighted = 0;
  let weights = 0;
  for (const t of terms) {
    const w = t.amount * 2 ** ((t.day - epochDay) / HALF_LIFE_DAYS);
    weighted += w * t.score;
    weights += w;
  }
  return { epochDay, weighted, weights, terms: terms.length };
}

/** What one paid due adds to its contact's sums (contacts/score-sums.ts writes it). */
export function paidDueSums(due: ScoredDue): PaidSums {
  return sumsOf(paidTerms(due));
}

/** Two sums as one, relative to the later epoch (the SQL upsert does the same). */
export function mergeSums(a: PaidSums | null, b: PaidSums): PaidSums {
  if (a === null) return b;
  const epochDay = Math.max(a.epochDay, b.epochDay);
  const fa = 2 ** ((a.epochDay - epochDay) / HALF_LIFE_DAYS);
  const fb = 2 ** ((b.epochDay - epochDay) / HALF_LIFE_DAYS);
  return {
    epochDay,
    weighted: a.weighted * fa + b.weighted * fb,
    weights: a.weights * fa + b.weights * fb,
    terms: a.terms + b.terms,
  };
}

/** What a contact's kept sums leave to compute at a read. */
export interface ScoreParts {
  /** every paid due's terms (contact_scores), null when none was ever paid */
  paid: PaidSums | null;
  /**
   * the open dues that score today (past their date, or with a broken promise): as many as the
   * contact has; open dues not yet due without a broken promise may be left out (they add nothing)
   */
  open: readonly ScoredDue[];
  /** the paid dues dated after today: in `paid`, where their weight is more than their amount */
  paidAfterToday: readonly ScoredDue[];
}

/** Below this share of what was kept, what is left after taking terms out may be mostly rounding. */
const CANCELLATION_BOUND = 1e-9;

/**
 * The score from a contact's kept sums (ScoreParts) as of `today`: the same value as
 * paymentScore over every due of the contact (to rounding). Null when it cannot be told from
 * them: the paid dues dated after today outweigh the other paid dues by 10^9 or more (dates
 * 15+ years apart), so what is left of the sums once they are taken out is mostly rounding. The
 * caller then computes it from the rows (paymentScore).
 */
export function paymentScoreFromSums(parts: ScoreParts, today: string): number | null {
  const todayDay = dayNumber(today);
  let keptWeighted = 0;
  let keptWeights = 0;
  let extraWeighted = 0;
  let extraWeights = 0;
  if (parts.paid !== null) {
    const { epochDay } = parts.paid;
    keptWeighted = parts.paid.weighted;
    keptWeights = parts.paid.weights;
    for (const due of parts.paidAfterToday) {
      const [own] = paidTerms(due) as [Term];
      const kept = own.amount * 2 ** ((own.day - epochDay) / HALF_LIFE_DAYS);
      keptWeighted -= kept * own.score;
      keptWeights -= kept;
      extraWeighted += own.amount * own.score;
      extraWeights += own.amount;
    }
    if (parts.paidAfterToday.length === parts.paid.terms) {
      // The dues taken out were all that was kept: what is left is rounding.
      keptWeighted = 0;
      keptWeights = 0;
    } else if (parts.paidAfterToday.length > 0 && keptWeights < parts.paid.weights * CANCELLATION_BOUND) {
      return null;
    }
    const scale = 2 ** ((epochDay - todayDay) / HALF_LIFE_DAYS);
    keptWeighted *= scale;
    keptWeights *= scale;
  }
  const open = weightedSums(parts.open, today);
  const weights = keptWeights + extraWeights + open.weights;
  if (weights === 0) return 100;
  return Math.round((keptWeighted + extraWeighted + open.weighted) / weights);
}

export { HALF_LIFE_DAYS };

export function riskFlag(score: number, maxDaysOverdue: number): RiskFlag {
  if (score < 50 || maxDaysOverdue >= 60) return 'high';
  if (score < 70 || maxDaysOverdue >= 15) return 'medium';
  return 'low';
}
