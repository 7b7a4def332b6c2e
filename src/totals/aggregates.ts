import { type OnConflictBuilder, sql } from 'kysely';
import { isPostgres, precompiled } from '../db/precompiled.js';
import type { BusinessTotalsTable, Database, Executor } from '../db/schema.js';
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
 */

const addToTotalsQuery = precompiled<{ businessId: string; paise: number }, never>((db, arg) =>
  db
    .updateTable('business_totals')
    .set({
      pending_count: sql`pending_count + 1`,
      pending_paise: sql`pending_paise + ${arg('paise')}`,
    })
    .where('business_id', '=', arg('businessId')),
);

const addToDayQuery = precompiled<{ businessId: string; dueDate: string; paise: number }, never>((db, arg) =>
  db
    .insertInto('pending_by_day')
    .values({
      business_id: arg('businessId'),
      due_date: arg('dueDate'),
      due_count: 1,
      due_paise: arg('paise'),
    })
    .onConflict((oc) =>
      oc.columns(['business_id', 'due_date']).doUpdateSet({
        due_count: sql`pending_by_day.due_count + 1`,
        due_paise: sql`pending_by_day.due_paise + ${arg('paise')}`,
      }),
    ),
);

const addToOpenDayQuery = precompiled<{ businessId: string; dueDate: string; count: number; paise: number }, never>(
  (db, arg) =>
    db
      .insertInto('open_by_day')
      .values({
        business_id: arg('businessId'),
        due_date: arg('dueDate'),
        due_count: arg('count'),
        due_paise: arg('paise'),
      })
      .onConflict((oc) =>
        oc.columns(['business_id', 'due_date']).doUpdateSet({
          due_count: sql`open_by_day.due_count + ${arg('count')}`,
          due_paise: sql`open_by_day.due_paise + ${arg('paise')}`,
        }),
      ),
);

/** Adds `count` dues and `paise` to the open balances of a due date (negative to take away). */
async function changeOpenDay(db: Executor, businessId: string, dueDate: string, count: number, paise: number) {
  if (count === 0 && paise === 0) return;
  await addToOpenDayQuery(db, { businessId, dueDate, count, paise });
  // Empty days are deleted so that aging's range reads stay short.
  if (count < 0) {
    await db
      .deleteFrom('open_by_day')
      .where('business_id', '=', businessId)
      .where('due_date', '=', dueDate)
      .where('due_count', '<=', 0)
      .execute();
  }
}

/**
 * PostgreSQL: the totals, the pending day and the open day in one statement (issue 26), so that a
 * create holds its business's totals row for one statement and the COMMIT. Both days' upserts read
 * the totals UPDATE's output, so the totals row is locked before the days': the one lock order
 * every writer keeps.
 */
const addPendingDueQuery = precompiled<{ businessId: string; dueDate: string; paise: number }, never>((db, arg) =>
  db
    .with('totals', (q) =>
      q
        .updateTable('business_totals')
        .set({
          pending_count: sql`pending_count + 1`,
          pending_paise: sql`pending_paise + ${arg('paise')}`,
        })
        .where('business_id', '=', arg('businessId'))
        .returning('business_id'),
    )
    .with('pending_day', (q) =>
      q
        .insertInto('pending_by_day')
        .columns(DAY_COLUMNS)
        .expression(newDueDay(arg('dueDate'), arg('paise')))
        .onConflict(mergeDay('pending_by_day'))
        .returning('business_id'),
    )
    .insertInto('open_by_day')
    .columns(DAY_COLUMNS)
    .expression(newDueDay(arg('dueDate'), arg('paise')))
    .onConflict(mergeDay('open_by_day')),
);

const DAY_COLUMNS = ['business_id', 'due_date', 'due_count', 'due_paise'] as const;

/** One new due on its date, as a per-day row read from the `totals` CTE's output (its lock first). */
function newDueDay(dueDate: unknown, paise: unknown) {
  return sql`select totals.business_id, cast(${dueDate} as date), 1, cast(${paise} as bigint) from totals`;
}

/** A per-day row that exists already: the new counts and paise are added to it. */
function mergeDay(table: 'pending_by_day' | 'open_by_day') {
  return (oc: OnConflictBuilder<Database, typeof table>) =>
    oc.columns(['business_id', 'due_date']).doUpdateSet({
      due_count: sql`${sql.ref(`${table}.due_count`)} + excluded.due_count`,
      due_paise: sql`${sql.ref(`${table}.due_paise`)} + excluded.due_paise`,
    });
}

/** A new pending due in the running totals (its balance is its amount) and its day's count (on every create: precompiled). */
export async function addPendingDue(db: Executor, businessId: string, dueDate: string, paise: number) {
  if (isPostgres(db)) {
    await addPendingDueQuery(db, { businessId, dueDate, paise });
    return;
  }
  await addToTotalsQuery(db, { businessId, paise });
  await addToDayQuery(db, { businessId, dueDate, paise });
  await changeOpenDay(db, businessId, dueDate, 1, paise);
}

/** Several new pending dues (a bulk import): the totals once, and each due date's count once. */
export async function addPendingDues(
  db: Executor,
  businessId: string,
  dues: readonly { dueDate: string; paise: number }[],
) {
  const only = dues[0];
  if (dues.length <= 1) {
    if (only) await addPendingDue(db, businessId, only.dueDate, only.paise);
    return;
  }
  const byDay = new Map<string, { count: number; paise: number }>();
  let paise = 0;
  for (const due of dues) {
    const day = byDay.get(due.dueDate) ?? { count: 0, paise: 0 };
    day.count++;
    day.paise += due.paise;
    byDay.set(due.dueDate, day);
    paise += due.paise;
  }
  await db
    .updateTable('business_totals')
    .set({
      pending_count: sql`pending_count + ${dues.length}`,
      pending_paise: sql`pending_paise + ${paise}`,
    })
    .where('business_id', '=', businessId)
    .execute();
  // One statement per table, in date order: concurrent writers take the day rows in one order (no deadlock).
  const days = [...byDay].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await addToDays(db, 'pending_by_day', businessId, days);
  await addToDays(db, 'open_by_day', businessId, days);
}

/** Adds counts and paise to several days of a per-day table, in one statement. */
async function addToDays(
  db: Executor,
  table: 'pending_by_day' | 'open_by_day',
  businessId: string,
  days: readonly [string, { count: number; paise: number }][],
) {
  await db
    .insertInto(table)
    .values(
      days.map(([dueDate, day]) => ({
        business_id: businessId,
        due_date: dueDate,
        due_count: day.count,
        due_paise: day.paise,
      })),
    )
    .onConflict(mergeDay(table))
    .execute();
}

/** Moves `count` dues worth `paise` from stored pending to stored overdue (the sweeper). */
export async function movePendingToOverdue(
  db: Executor,
  businessId: string,
  dueDate: string,
  count: number,
  paise: number,
) {
  await db
    .updateTable('business_totals')
    .set({
      pending_count: sql`pending_count - ${count}`,
      pending_paise: sql`pending_paise - ${paise}`,
      overdue_count: sql`overdue_count + ${count}`,
      overdue_paise: sql`overdue_paise + ${paise}`,
    })
    .where('business_id', '=', businessId)
    .execute();
  await removeFromPendingDay(db, businessId, dueDate, count, paise);
}

type OpenStatus = 'pending' | 'overdue';

/** A due as the totals count it: its stored open status, date and balance. */
export interface OpenDue {
  status: OpenStatus;
  dueDate: string;
  balancePaise: number;
}

/** Adds (sign 1) or removes (sign -1) an open due's balance from its stored status's bucket and day. */
async function moveOpenDue(db: Executor, businessId: string, due: OpenDue, sign: 1 | -1) {
  const s = due.status;
  await db
    .updateTable('business_totals')
    .set({
      [`${s}_count`]: sql`${sql.ref(`${s}_count`)} + ${sign}`,
      [`${s}_paise`]: sql`${sql.ref(`${s}_paise`)} + ${sign * due.balancePaise}`,
    })
    .where('business_id', '=', businessId)
    .execute();
  if (s === 'pending') {
    if (sign === 1) await addToDayQuery(db, { businessId, dueDate: due.dueDate, paise: due.balancePaise });
    else await removeFromPendingDay(db, businessId, due.dueDate, 1, due.balancePaise);
  }
  await changeOpenDay(db, businessId, due.dueDate, sign, sign * due.balancePaise);
}

/** A due leaves the open totals (deleted), or is counted again with new values (PATCH: remove, then add). */
export function removeOpenDue(db: Executor, businessId: string, due: OpenDue) {
  return moveOpenDue(db, businessId, due, -1);
}

export function addOpenDue(db: Executor, businessId: string, due: OpenDue) {
  return moveOpenDue(db, businessId, due, 1);
}

/** A due settled without a new payment (its amount lowered to what was paid): counted as paid. */
export async function addPaidDue(db: Executor, businessId: string, amountPaise: number) {
  await db
    .updateTable('business_totals')
    .set({ paid_count: sql`paid_count + 1`, paid_paise: sql`paid_paise + ${amountPaise}` })
    .where('business_id', '=', businessId)
    .execute();
}

/**
 * A payment of `paise` on an open due: its balance shrinks in its bucket (and day); the payment
 * counts in its month's received money; the payment that settles the due moves it to paid (count
 * and whole amount).
 */
export async function applyPayment(
  db: Executor,
  p: {
    businessId: string;
    fromStatus: OpenStatus;
    dueDate: string;
    paise: number;
    settles: boolean;
    amountPaise: number;
    month: string;
  },
) {
  const from = p.fromStatus;
  const settled = p.settles ? 1 : 0;
  await db
    .updateTable('business_totals')
    .set({
      [`${from}_count`]: sql`${sql.ref(`${from}_count`)} - ${settled}`,
      [`${from}_paise`]: sql`${sql.ref(`${from}_paise`)} - ${p.paise}`,
      paid_count: sql`paid_count + ${settled}`,
      paid_paise: sql`paid_paise + ${settled * p.amountPaise}`,
    })
    .where('business_id', '=', p.businessId)
    .execute();
  if (from === 'pending') await removeFromPendingDay(db, p.businessId, p.dueDate, settled, p.paise);
  await changeOpenDay(db, p.businessId, p.dueDate, -settled, -p.paise);
  await db
    .insertInto('paid_by_month')
    .values({ business_id: p.businessId, month: p.month, due_count: settled, due_paise: p.paise })
    .onConflict((oc) =>
      oc.columns(['business_id', 'month']).doUpdateSet({
        due_count: sql`paid_by_month.due_count + ${settled}`,
        due_paise: sql`paid_by_month.due_paise + ${p.paise}`,
      }),
    )
    .execute();
}

export async function addContact(db: Executor, businessId: string, count = 1) {
  await db
    .updateTable('business_totals')
    .set({ contact_count: sql`contact_count + ${count}` })
    .where('business_id', '=', businessId)
    .execute();
}

async function removeFromPendingDay(db: Executor, businessId: string, dueDate: string, count: number, paise: number) {
  await db
    .updateTable('pending_by_day')
    .set({
      due_count: sql`due_count - ${count}`,
      due_paise: sql`due_paise - ${paise}`,
    })
    .where('business_id', '=', businessId)
    .where('due_date', '=', dueDate)
    .execute();
  if (count === 0) return;
  // Empty days are deleted so that the past-due range read and the sweeper stay short.
  await db
    .deleteFrom('pending_by_day')
    .where('business_id', '=', businessId)
    .where('due_date', '=', dueDate)
    .where('due_count', '<=', 0)
    .execute();
}

export interface Totals {
  pending: { count: number; paise: number };
  overdue: { count: number; paise: number };
  paid: { count: number; paise: number };
  paidThisMonthPaise: number;
  contactCount: number;
}

/**
 * The summary in one statement (precompiled: it is read far more often than written): the running
 * totals, the past-due part of stored pending, and this month's payments. One statement is one
 * snapshot, so a write landing between separate reads cannot skew the figures, and on SQLite it
 * is one read transaction instead of three.
 */
const totalsQuery = precompiled<
  { businessId: string; today: string; month: string },
  BusinessTotalsTable & { past_count: number | string; past_paise: number | string; paid_month_paise: number | null }
>((db, arg) =>
  db
    .selectFrom('business_totals')
    .selectAll('business_totals')
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
        .select('due_paise')
        .where('business_id', '=', arg('businessId'))
        .where('month', '=', arg('month'))
        .as('paid_month_paise'),
    ])
    .where('business_totals.business_id', '=', arg('businessId')),
);

/** Totals with the time-dependent rule of SPEC part 2 applied: past-due pending counts as overdue. */
export async function readTotals(db: Executor, businessId: string, today: string, month: string): Promise<Totals> {
  const [totals] = await totalsQuery(db, { businessId, today, month });
  const t = totals ?? {
    pending_count: 0,
    pending_paise: 0,
    overdue_count: 0,
    overdue_paise: 0,
    paid_count: 0,
    paid_paise: 0,
    contact_count: 0,
  };
  const pastCount = Number(totals?.past_count ?? 0);
  const pastPaise = Number(totals?.past_paise ?? 0);
  return {
    pending: {
      count: t.pending_count - pastCount,
      paise: t.pending_paise - pastPaise,
    },
    overdue: {
      count: t.overdue_count + pastCount,
      paise: t.overdue_paise + pastPaise,
    },
    paid: { count: t.paid_count, paise: t.paid_paise },
    paidThisMonthPaise: Number(totals?.paid_month_paise ?? 0),
    contactCount: t.contact_count,
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
      sql<number | string>`pending_count + overdue_count`.as('open_count'),
      sql<number | string>`pending_paise + overdue_paise`.as('open_paise'),
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
