import { sql } from 'kysely';
import { applyTotals, movePendingDay } from '../db/port.js';
import { precompiled } from '../db/precompiled.js';
import type { Executor } from '../db/schema.js';
import { TOTALS_COLUMNS, type TotalsColumn, type TotalsDeltas } from '../db/totals-deltas.js';
import { addDays } from '../lib/dates.js';

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
export function applyPayment(
  db: Executor,
  p: {
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
  },
) {
  const from = p.fromStatus;
  const settled = p.settles ? 1 : 0;
  const money = p.moneyPaise ?? p.paise;
  const day = [{ dueDate: p.dueDate, count: -settled, paise: -p.paise }];
  return applyTotals(db, p.businessId, {
    totals: {
      [`${from}_count`]: -settled,
      [`${from}_paise`]: -p.paise,
      paid_count: settled,
      paid_paise: settled * p.amountPaise,
    },
    pendingDays: from === 'pending' ? day : [],
    openDays: day,
    paidMonth: { month: p.month, count: settled, paise: money },
  });
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

export interface Totals {
  pending: { count: number; paise: number };
  overdue: { count: number; paise: number };
  paid: { count: number; paise: number };
  paidThisMonthPaise: number;
  contactCount: number;
  /** the contacts' unused credit */
  creditPaise: number;
}

/**
 * The summary in one statement (precompiled: it is read far more often than written): the running
 * totals (summed over the business's shards on PostgreSQL), the past-due part of stored pending, and this month's payments. One statement is one
 * snapshot, so a write landing between separate reads cannot skew the figures, and on SQLite it
 * is one read transaction instead of three.
 */
const totalsQuery = precompiled<
  { businessId: string; today: string; month: string },
  Record<TotalsColumn | 'past_count' | 'past_paise' | 'paid_month_paise', number | string | null>
>((db, arg) =>
  db
    .selectFrom('business_totals')
    .select(TOTALS_COLUMNS.map((c) => sql<number>`coalesce(sum(${sql.ref(c)}), 0)`.as(c)))
    .select((eb) => [
      eb
        .selectFrom('pending_by_day')
        .select(sql<number>`coalesce(sum(due_count), 0)`.as('n'))
        .where('business_id', '=', arg('businessId'))
        .where('due_date', '<', arg('today'))
        .as('past_count'),
      eb
        .selectFrom('pending_by_day')
        .select(sql<number>`coalesce(sum(due_paise), 0)`.as('n'))
        .where('business_id', '=', arg('businessId'))
        .where('due_date', '<', arg('today'))
        .as('past_paise'),
      eb
        .selectFrom('paid_by_month')
        .select(sql<number>`sum(due_paise)`.as('n'))
        .where('business_id', '=', arg('businessId'))
        .where('month', '=', arg('month'))
        .as('paid_month_paise'),
    ])
    .where('business_totals.business_id', '=', arg('businessId')),
);

/** The sum of a business's totals column over its shards (one row on SQLite). */
export async function readTotalsColumn(
  db: Executor,
  businessId: string,
  column: TotalsColumn | 'data_version' | 'balance_contact_count',
) {
  const row = await db
    .selectFrom('business_totals')
    .select(sql<number | string | null>`sum(${sql.ref(column)})`.as('n'))
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Totals with the time-dependent rule of SPEC part 2 applied: past-due pending counts as overdue. */
export async function readTotals(db: Executor, businessId: string, today: string, month: string): Promise<Totals> {
  const [row] = await totalsQuery(db, { businessId, today, month });
  const n = (column: keyof NonNullable<typeof row>) => Number(row?.[column] ?? 0);
  const pastCount = n('past_count');
  const pastPaise = n('past_paise');
  return {
    pending: {
      count: n('pending_count') - pastCount,
      paise: n('pending_paise') - pastPaise,
    },
    overdue: {
      count: n('overdue_count') + pastCount,
      paise: n('overdue_paise') + pastPaise,
    },
    paid: { count: n('paid_count'), paise: n('paid_paise') },
    paidThisMonthPaise: n('paid_month_paise'),
    contactCount: n('contact_count'),
    creditPaise: n('credit_paise'),
  };
}

export interface AgingBucket {
  count: number;
  paise: number;
}

export interface Aging {
  current: AgingBucket;
  d1_30: AgingBucket;
  d31_60: AgingBucket;
  d61_90: AgingBucket;
  d90_plus: AgingBucket;
}

/**
 * Open balances by days past due (PRODUCT part 13), `today` being the business-local date: not yet
 * past due, 1-30, 31-60, 61-90 and more than 90 days. One statement (one snapshot): three range
 * sums over at most 90 days of open_by_day and the running totals; the oldest bucket is what the
 * totals hold beyond the others, so the read never grows with the business's history.
 */
export async function readAging(db: Executor, businessId: string, today: string): Promise<Aging> {
  const day = (n: number) => addDays(today, -n);
  const range = (from: string | null, to: string | null, column: 'due_count' | 'due_paise') =>
    sql<number | string>`(select coalesce(sum(${sql.ref(column)}), 0) from open_by_day
      where business_id = ${businessId}
      ${from === null ? sql`` : sql`and due_date >= ${from}`}
      ${to === null ? sql`` : sql`and due_date <= ${to}`})`;
  const row = await db
    .selectFrom('business_totals')
    .select([
      sql<number | string>`sum(pending_count + overdue_count)`.as('open_count'),
      sql<number | string>`sum(pending_paise + overdue_paise)`.as('open_paise'),
      range(today, null, 'due_count').as('current_count'),
      range(today, null, 'due_paise').as('current_paise'),
      range(day(30), day(1), 'due_count').as('d1_30_count'),
      range(day(30), day(1), 'due_paise').as('d1_30_paise'),
      range(day(60), day(31), 'due_count').as('d31_60_count'),
      range(day(60), day(31), 'due_paise').as('d31_60_paise'),
      range(day(90), day(61), 'due_count').as('d61_90_count'),
      range(day(90), day(61), 'due_paise').as('d61_90_paise'),
    ])
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  const n = (v: number | string | undefined) => Number(v ?? 0);
  const bucket = (count: number | string | undefined, paise: number | string | undefined) => ({
    count: n(count),
    paise: n(paise),
  });
  const current = bucket(row?.current_count, row?.current_paise);
  const d1_30 = bucket(row?.d1_30_count, row?.d1_30_paise);
  const d31_60 = bucket(row?.d31_60_count, row?.d31_60_paise);
  const d61_90 = bucket(row?.d61_90_count, row?.d61_90_paise);
  const known = [current, d1_30, d31_60, d61_90];
  return {
    current,
    d1_30,
    d31_60,
    d61_90,
    d90_plus: {
      count: n(row?.open_count) - known.reduce((s, b) => s + b.count, 0),
      paise: n(row?.open_paise) - known.reduce((s, b) => s + b.paise, 0),
    },
  };
}
