import { sql } from 'kysely';
import { precompiled } from '../db/precompiled.js';
import type { Executor } from '../db/schema.js';
import { TOTALS_COLUMNS, type TotalsColumn } from '../db/totals-deltas.js';
import { addDays } from '../lib/dates.js';

/**
 * Reading a business's running totals (kept by totals/aggregates.ts): the summary's figures and
 * the aging buckets, each one statement whose cost does not grow with the business's dues. On
 * PostgreSQL a business has several shard rows; every read sums them.
 */
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
