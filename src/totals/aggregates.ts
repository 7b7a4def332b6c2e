import { applyTotals, movePendingDay } from '../db/port.js';
import type { Executor } from '../db/schema.js';
import type { DayDelta, TotalsDeltas } from '../db/totals-deltas.js';

/**
 * Running per-business totals, kept exact by changing them in the same database transaction as
 * every change to the rows they count. The summary then reads a handful of rows whatever the
 * number of dues (issue 2: summary at 1M dues within 1.5x of at 1k).
 *
 * Stored statuses are counted in business_totals. Because "overdue" also covers stored-pending
 * dues whose date has passed, pending dues are also counted per due date in pending_by_day, so
 * the past-due part of "pending" is a short range read.
 *
 * Money figures are balances (amount less payments) for open dues and whole amounts for paid ones;
 * paid_by_month sums the payments received in each business-local month (part payments included).
 * A deleted due leaves every figure.
 *
 * Every open due (whatever its stored status) is also counted per due date in open_by_day, so
 * aging (PRODUCT part 13) is a few range reads over at most 90 days of rows.
 *
 * Every writer touches business_totals first, then pending_by_day, then open_by_day, then
 * paid_by_month: one lock order, so concurrent writers on PostgreSQL queue on the business's totals row instead of
 * deadlocking.
 *
 * Here each change is turned into its deltas (pure); the store's adapter writes them
 * (db/port.ts applyTotals): sharded per connection on PostgreSQL (db/postgres/totals.ts), one row
 * per key on SQLite (db/sqlite/totals.ts). Readers sum the shards.
 */
/** A new pending due in the running totals (its balance is its amount) and its day's count. */
export function addPendingDue(db: Executor, businessId: string, dueDate: string, paise: number) {
  return applyTotals(db, businessId, pendingDuesDeltas([{ dueDate, paise }]));
}

/** What new pending dues add to the totals (as addPendingDues). */
export function pendingDuesDeltas(dues: readonly { dueDate: string; paise: number }[]): TotalsDeltas {
  const { days, paise } = byDueDate(dues);
  const list = days.map(([dueDate, day]) => ({ dueDate, ...day }));
  return {
    totals: { pending_count: dues.length, pending_paise: paise },
    pendingDays: list,
    openDays: list,
  };
}

/** Dues summed per due date, in date order (concurrent writers take the day rows in one order: no deadlock). */
function byDueDate(dues: readonly { dueDate: string; paise: number }[]) {
  const byDay = new Map<string, { count: number; paise: number }>();
  let paise = 0;
  for (const due of dues) {
    const day = byDay.get(due.dueDate) ?? { count: 0, paise: 0 };
    day.count++;
    day.paise += due.paise;
    byDay.set(due.dueDate, day);
    paise += due.paise;
  }
  const days = [...byDay].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { days, paise };
}

/** Several new pending dues (a bulk import): the totals once, and each due date's count once. */
export async function addPendingDues(
  db: Executor,
  businessId: string,
  dues: readonly { dueDate: string; paise: number }[],
) {
  if (dues.length === 0) return;
  await applyTotals(db, businessId, pendingDuesDeltas(dues));
}

/**
 * Moves `count` dues worth `paise` from stored pending to stored overdue (the sweeper). Called for
 * every past day the sweeper finds, even with nothing to move: on PostgreSQL it folds the day's
 * shards (db/postgres/totals.ts).
 */
export function movePendingToOverdue(db: Executor, businessId: string, dueDate: string, count: number, paise: number) {
  return movePendingDay(db, businessId, dueDate, count, paise);
}

type OpenStatus = 'pending' | 'overdue';

/** A due as the totals count it: its stored open status, date and balance. */
export interface OpenDue {
  status: OpenStatus;
  dueDate: string;
  balancePaise: number;
}

/** Adds (sign 1) or removes (sign -1) an open due's balance from its stored status's bucket and day. */
function moveOpenDue(db: Executor, businessId: string, due: OpenDue, sign: 1 | -1) {
  const s = due.status;
  const day = [{ dueDate: due.dueDate, count: sign, paise: sign * due.balancePaise }];
  return applyTotals(db, businessId, {
    totals: { [`${s}_count`]: sign, [`${s}_paise`]: sign * due.balancePaise },
    pendingDays: s === 'pending' ? day : [],
    openDays: day,
  });
}

/** A due leaves the open totals (deleted), or is counted again with new values (PATCH: remove, then add). */
export function removeOpenDue(db: Executor, businessId: string, due: OpenDue) {
  return moveOpenDue(db, businessId, due, -1);
}

export function addOpenDue(db: Executor, businessId: string, due: OpenDue) {
  return moveOpenDue(db, businessId, due, 1);
}

/** A due settled without a new payment (its amount lowered to what was paid): counted as paid. */
export function addPaidDue(db: Executor, businessId: string, amountPaise: number) {
  return applyTotals(db, businessId, { totals: { paid_count: 1, paid_paise: amountPaise } });
}

/**
 * A payment of `paise` on an open due: its balance shrinks in its bucket (and day); the payment
 * counts in its month's received money; the payment that settles the due moves it to paid (count
 * and whole amount).
 */
export function applyPayment(db: Executor, p: PaymentChange) {
  return applyTotals(db, p.businessId, paymentDeltas(p));
}

export interface PaymentChange {
  businessId: string;
  fromStatus: OpenStatus;
  dueDate: string;
  paise: number;
  settles: boolean;
  amountPaise: number;
  month: string;
  /**
   * what of it is money received this month (default all of it): 0 for credit used or an
   * adjustment, which lower the balance without new money
   */
  moneyPaise?: number;
}

/** What a payment does to the totals (as applyPayment writes it). */
export function paymentDeltas(p: PaymentChange): TotalsDeltas {
  const from = p.fromStatus;
  const settled = p.settles ? 1 : 0;
  const money = p.moneyPaise ?? p.paise;
  const day = [{ dueDate: p.dueDate, count: -settled, paise: -p.paise }];
  return {
    totals: {
      [`${from}_count`]: -settled,
      [`${from}_paise`]: -p.paise,
      paid_count: settled,
      paid_paise: settled * p.amountPaise,
    },
    pendingDays: from === 'pending' ? day : [],
    openDays: day,
    paidMonth: { month: p.month, count: settled, paise: money },
  };
}

/**
 * Many changes' deltas as few as the totals take: one per month of received money (usually one),
 * each column and day summed, days in date order (the one lock order).
 */
export function sumDeltas(list: readonly TotalsDeltas[]): TotalsDeltas[] {
  const byMonth = new Map<string, TotalsDeltas & { pending: Map<string, DayDelta>; open: Map<string, DayDelta> }>();
  const none = '';
  for (const d of list) {
    const key = d.paidMonth?.month ?? none;
    let sum = byMonth.get(key);
    if (!sum) {
      sum = { totals: {}, pending: new Map(), open: new Map() };
      byMonth.set(key, sum);
    }
    for (const [column, value] of Object.entries(d.totals) as [keyof TotalsDeltas['totals'], number][]) {
      sum.totals[column] = (sum.totals[column] ?? 0) + value;
    }
    for (const [days, into] of [
      [d.pendingDays, sum.pending],
      [d.openDays, sum.open],
    ] as const) {
      for (const day of days ?? []) {
        const kept = into.get(day.dueDate) ?? { dueDate: day.dueDate, count: 0, paise: 0 };
        into.set(day.dueDate, { dueDate: day.dueDate, count: kept.count + day.count, paise: kept.paise + day.paise });
      }
    }
    if (d.paidMonth) {
      const kept = sum.paidMonth ?? { month: d.paidMonth.month, count: 0, paise: 0 };
      sum.paidMonth = {
        month: kept.month,
        count: kept.count + d.paidMonth.count,
        paise: kept.paise + d.paidMonth.paise,
      };
    }
  }
  const inOrder = (days: Map<string, DayDelta>) =>
    [...days.values()]
      .filter((day) => day.count !== 0 || day.paise !== 0)
      .sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : 0));
  return [...byMonth.values()].map(({ pending, open, ...d }) => ({
    ...d,
    pendingDays: inOrder(pending),
    openDays: inOrder(open),
  }));
}

/** Many changes' deltas written together: sumDeltas, then the store's adapter. */
export async function applyAll(db: Executor, businessId: string, list: readonly TotalsDeltas[]): Promise<void> {
  for (const d of sumDeltas(list)) await applyTotals(db, businessId, d);
}

/**
 * Money received (or taken back, negative) in a business-local month that no due's balance moved
 * with: a receipt's credit when it is received, or taken back by a reversal.
 */
export async function addMonthMoney(db: Executor, businessId: string, month: string, paise: number) {
  if (paise === 0) return;
  await applyTotals(db, businessId, { totals: {}, paidMonth: { month, count: 0, paise } });
}

/** A paid due leaves the paid totals (a reversal reopens it): count and whole amount. */
export function removePaidDue(db: Executor, businessId: string, amountPaise: number) {
  return applyTotals(db, businessId, { totals: { paid_count: -1, paid_paise: -amountPaise } });
}

/**
 * The business's contacts' credit moves by `paise` (a receipt's credit received, used by a due, or
 * taken back by a reversal), in the transaction that moves the contact's own: the summary's
 * credit_paise is then read from the totals, not summed over contacts.
 */
export async function addCredit(db: Executor, businessId: string, paise: number) {
  if (paise === 0) return;
  await applyTotals(db, businessId, { totals: { credit_paise: paise } });
}

export function addContact(db: Executor, businessId: string, count = 1) {
  return applyTotals(db, businessId, { totals: { contact_count: count } });
}
