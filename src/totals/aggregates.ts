import { CompiledQuery, type OnConflictBuilder, sql } from 'kysely';
import { preparedStatement } from '../db/postgres.js';
import { isPostgres, precompiled } from '../db/precompiled.js';
import type { Database, Executor } from '../db/schema.js';
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
 * PostgreSQL (issue 26): each of these tables holds up to 16 rows per key, its `shard`s (migration
 * 2026-11-25T01-00), and a transaction writes all its deltas to its connection's shard in one
 * statement (applyDeltas), so one business's concurrent writes do not queue on one row through
 * each other's COMMIT. Readers sum the shards. A shard's counts may go below zero (a due created on
 * one shard is paid on another): only the sums mean anything, and a shard's day row is deleted
 * when both its count and paise are 0. SQLite (one writer at a time) keeps one row per key and
 * the statements below the PostgreSQL branches.
 */

/** A PostgreSQL transaction's shard: its connection's, the same expression as the data version's trigger. */
const SHARD = 'pg_backend_pid() % 16';

/**
 * The transaction-local setting in which the data version's deferred trigger remembers the
 * business whose version the transaction has moved (migration 2026-11-24T08-00).
 */
const DATA_VERSION_MOVED = 'receivables.data_version_moved';

const TOTALS_COLUMNS = [
  'pending_count',
  'pending_paise',
  'overdue_count',
  'overdue_paise',
  'paid_count',
  'paid_paise',
  'contact_count',
  'credit_paise',
] as const;
type TotalsColumn = (typeof TOTALS_COLUMNS)[number];

interface DayDelta {
  dueDate: string;
  count: number;
  paise: number;
}

/** What one write adds to the aggregates (negative to take away). Days: each date at most once. */
interface Deltas {
  totals: Partial<Record<TotalsColumn, number>>;
  pendingDays?: readonly DayDelta[];
  openDays?: readonly DayDelta[];
  paidMonth?: { month: string; count: number; paise: number };
}

const dayUpsert = (table: 'pending_by_day' | 'open_by_day', first: number) => `
  insert into ${table} as d (business_id, shard, due_date, due_count, due_paise)
  select totals.business_id, totals.shard, x.due_date, x.due_count, x.due_paise
  from totals, unnest($${first}::date[], $${first + 1}::int[], $${first + 2}::bigint[]) as x(due_date, due_count, due_paise)
  on conflict (business_id, due_date, shard)
  do update set due_count = d.due_count + excluded.due_count, due_paise = d.due_paise + excluded.due_paise`;

/** APPLY_DELTAS' parameters: the business, one per totals column, then 3 per day table, then the month's 3. */
const FIRST_DAY_PARAM = TOTALS_COLUMNS.length + 2;
const MONTH_PARAM = FIRST_DAY_PARAM + 6;

/**
 * Every aggregate delta of a write in one statement, one text for every writer (a named prepared
 * statement): the shard's totals row (made on first use), then the days' and the month's rows,
 * which read the totals' output, so the totals row is always locked first.
 *
 * It also moves the business's data version (issue 26): every writer of the totals changes the
 * business's dues or contacts in the same transaction, whose deferred trigger
 * (bump_business_data_version_at_commit, migration 2026-11-25T01-00) would otherwise update this
 * same row a second time at COMMIT. The statement marks the business as moved for the rest of the
 * transaction (the setting that trigger reads), so the trigger finds it done and writes nothing.
 */
const APPLY_DELTAS = `with totals as (
  insert into business_totals as t (business_id, shard, ${TOTALS_COLUMNS.join(', ')}, data_version)
  values ($1, ${SHARD}, ${TOTALS_COLUMNS.map((_, i) => `$${i + 2}`).join(', ')}, 1)
  on conflict (business_id, shard)
  do update set ${TOTALS_COLUMNS.map((c) => `${c} = t.${c} + excluded.${c}`).join(', ')},
    data_version = t.data_version + 1
  returning business_id, shard
), pending_day as (${dayUpsert('pending_by_day', FIRST_DAY_PARAM)}
), open_day as (${dayUpsert('open_by_day', FIRST_DAY_PARAM + 3)}
), paid_month as (
  insert into paid_by_month as m (business_id, shard, month, due_count, due_paise)
  select totals.business_id, totals.shard, $${MONTH_PARAM}::text, $${MONTH_PARAM + 1}::int, $${MONTH_PARAM + 2}::bigint
  from totals where $${MONTH_PARAM}::text is not null
  on conflict (business_id, month, shard)
  do update set due_count = m.due_count + excluded.due_count, due_paise = m.due_paise + excluded.due_paise
)
select set_config('${DATA_VERSION_MOVED}', $1::text, true)`;

/** The shard's day rows a write has emptied (count and paise both 0), deleted so range reads stay short. */
const PRUNE_DAYS = `with pending_day as (
  delete from pending_by_day where business_id = $1 and shard = ${SHARD} and due_date = any($2::date[])
    and due_count = 0 and due_paise = 0
)
delete from open_by_day where business_id = $1 and shard = ${SHARD} and due_date = any($3::date[])
  and due_count = 0 and due_paise = 0`;

preparedStatement(APPLY_DELTAS);
preparedStatement(PRUNE_DAYS);

function deltasQuery(businessId: string, d: Deltas): CompiledQuery {
  const days = (list: readonly DayDelta[] = []) => [
    list.map((x) => x.dueDate),
    list.map((x) => x.count),
    list.map((x) => x.paise),
  ];
  return CompiledQuery.raw(APPLY_DELTAS, [
    businessId,
    ...TOTALS_COLUMNS.map((c) => d.totals[c] ?? 0),
    ...days(d.pendingDays),
    ...days(d.openDays),
    d.paidMonth?.month ?? null,
    d.paidMonth?.count ?? 0,
    d.paidMonth?.paise ?? 0,
  ]);
}

/** PostgreSQL: applies a write's deltas to its shard (one statement; two when a day may have emptied). */
async function applyDeltas(db: Executor, businessId: string, d: Deltas): Promise<void> {
  await db.executeQuery(deltasQuery(businessId, d));
  const emptied = (list: readonly DayDelta[] = []) =>
    list.filter((x) => x.count < 0 || x.paise < 0).map((x) => x.dueDate);
  const pending = emptied(d.pendingDays);
  const open = emptied(d.openDays);
  if (pending.length > 0 || open.length > 0) {
    await db.executeQuery(CompiledQuery.raw(PRUNE_DAYS, [businessId, pending, open]));
  }
}

/**
 * PostgreSQL, the sweeper: moves `count` dues worth `paise` of a past day from pending to overdue,
 * and folds the day's pending rows of every shard into (at most) one row of this transaction's
 * shard holding what is left: a past day is written by nothing but the sweeper from now on, so
 * its rows would otherwise stay (summing to 0) and be read by every summary and sweep. Every
 * deleted row is counted once (a concurrent fold skips the rows this one deleted), and the row
 * left is merged into any that appeared meanwhile.
 */
const FOLD_PENDING_DAY = `with totals as (
  insert into business_totals as t (business_id, shard, pending_count, pending_paise, overdue_count, overdue_paise)
  values ($1, ${SHARD}, -$3::int, -$4::bigint, $3::int, $4::bigint)
  on conflict (business_id, shard) do update set
    pending_count = t.pending_count + excluded.pending_count, pending_paise = t.pending_paise + excluded.pending_paise,
    overdue_count = t.overdue_count + excluded.overdue_count, overdue_paise = t.overdue_paise + excluded.overdue_paise
  returning business_id, shard
), folded as (
  delete from pending_by_day p using totals
  where p.business_id = totals.business_id and p.due_date = $2::date
  returning p.due_count, p.due_paise
), rest as (
  select coalesce(sum(due_count), 0) - $3::int as due_count, coalesce(sum(due_paise), 0) - $4::bigint as due_paise
  from folded
)
insert into pending_by_day as d (business_id, shard, due_date, due_count, due_paise)
select totals.business_id, totals.shard, $2::date, rest.due_count, rest.due_paise from totals, rest
where rest.due_count <> 0 or rest.due_paise <> 0
on conflict (business_id, due_date, shard)
do update set due_count = d.due_count + excluded.due_count, due_paise = d.due_paise + excluded.due_paise`;

preparedStatement(FOLD_PENDING_DAY);

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
    const day = [{ dueDate, count: 1, paise }];
    return applyDeltas(db, businessId, {
      totals: { pending_count: 1, pending_paise: paise },
      pendingDays: day,
      openDays: day,
    });
  }
  await addToTotalsQuery(db, { businessId, paise });
  await addToDayQuery(db, { businessId, dueDate, paise });
  await changeOpenDay(db, businessId, dueDate, 1, paise);
}

/**
 * PostgreSQL: the statement that adds new pending dues to the totals (as addPendingDues), for a
 * writer that sends it together with the dues' own rows (db/precompiled.ts writeTogether).
 */
export function pendingDuesQuery(businessId: string, dues: readonly { dueDate: string; paise: number }[]) {
  const { days, paise } = byDueDate(dues);
  const list = days.map(([dueDate, day]) => ({ dueDate, ...day }));
  return deltasQuery(businessId, {
    totals: { pending_count: dues.length, pending_paise: paise },
    pendingDays: list,
    openDays: list,
  });
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
  const only = dues[0];
  if (dues.length <= 1) {
    if (only) await addPendingDue(db, businessId, only.dueDate, only.paise);
    return;
  }
  if (isPostgres(db)) {
    await db.executeQuery(pendingDuesQuery(businessId, dues));
    return;
  }
  const { days, paise } = byDueDate(dues);
  await db
    .updateTable('business_totals')
    .set({
      pending_count: sql`pending_count + ${dues.length}`,
      pending_paise: sql`pending_paise + ${paise}`,
    })
    .where('business_id', '=', businessId)
    .execute();
  await addToDays(db, 'pending_by_day', businessId, days);
  await addToDays(db, 'open_by_day', businessId, days);
}

/** Adds counts and paise to several days of a per-day table, in one statement (a few for thousands of days). */
async function addToDays(
  db: Executor,
  table: 'pending_by_day' | 'open_by_day',
  businessId: string,
  days: readonly [string, { count: number; paise: number }][],
) {
  // At most DAYS_PER_STATEMENT days (4 values each) per statement: an import's days may be many.
  for (let start = 0; start < days.length; start += DAYS_PER_STATEMENT) {
    await db
      .insertInto(table)
      .values(
        days.slice(start, start + DAYS_PER_STATEMENT).map(([dueDate, day]) => ({
          business_id: businessId,
          due_date: dueDate,
          due_count: day.count,
          due_paise: day.paise,
        })),
      )
      .onConflict(mergeDay(table))
      .execute();
  }
}

/** Day rows per statement in addToDays: well under SQLite's 32,766 bound values. */
const DAYS_PER_STATEMENT = 2000;

/**
 * Moves `count` dues worth `paise` from stored pending to stored overdue (the sweeper). Called for
 * every past day the sweeper finds, even with nothing to move: on PostgreSQL it folds the day's
 * shards (see FOLD_PENDING_DAY).
 */
export async function movePendingToOverdue(
  db: Executor,
  businessId: string,
  dueDate: string,
  count: number,
  paise: number,
) {
  if (isPostgres(db)) {
    await db.executeQuery(CompiledQuery.raw(FOLD_PENDING_DAY, [businessId, dueDate, count, paise]));
    return;
  }
  if (count === 0 && paise === 0) return;
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
  if (isPostgres(db)) {
    const day = [{ dueDate: due.dueDate, count: sign, paise: sign * due.balancePaise }];
    return applyDeltas(db, businessId, {
      totals: { [`${s}_count`]: sign, [`${s}_paise`]: sign * due.balancePaise },
      pendingDays: s === 'pending' ? day : [],
      openDays: day,
    });
  }
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
  if (isPostgres(db)) return applyDeltas(db, businessId, { totals: { paid_count: 1, paid_paise: amountPaise } });
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
  if (isPostgres(db)) {
    const day = [{ dueDate: p.dueDate, count: -settled, paise: -p.paise }];
    return applyDeltas(db, p.businessId, {
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
    .values({ business_id: p.businessId, month: p.month, due_count: settled, due_paise: money })
    .onConflict((oc) =>
      oc.columns(['business_id', 'month']).doUpdateSet({
        due_count: sql`paid_by_month.due_count + ${settled}`,
        due_paise: sql`paid_by_month.due_paise + ${money}`,
      }),
    )
    .execute();
}

/**
 * Money received (or taken back, negative) in a business-local month that no due's balance moved
 * with: a receipt's credit when it is received, or taken back by a reversal.
 */
export async function addMonthMoney(db: Executor, businessId: string, month: string, paise: number) {
  if (paise === 0) return;
  if (isPostgres(db)) return applyDeltas(db, businessId, { totals: {}, paidMonth: { month, count: 0, paise } });
  await db
    .insertInto('paid_by_month')
    .values({ business_id: businessId, month, due_count: 0, due_paise: paise })
    .onConflict((oc) =>
      oc.columns(['business_id', 'month']).doUpdateSet({ due_paise: sql`paid_by_month.due_paise + ${paise}` }),
    )
    .execute();
}

/**
 * The business's contacts' credit moves by `paise` (a receipt's credit received, used by a due, or
 * taken back by a reversal), in the transaction that moves the contact's own: the summary's
 * credit_paise is then read from the totals, not summed over contacts.
 */
export async function addCredit(db: Executor, businessId: string, paise: number) {
  if (paise === 0) return;
  if (isPostgres(db)) return applyDeltas(db, businessId, { totals: { credit_paise: paise } });
  await db
    .updateTable('business_totals')
    .set({ credit_paise: sql`credit_paise + ${paise}` })
    .where('business_id', '=', businessId)
    .execute();
}

/** A paid due leaves the paid totals (a reversal reopens it): count and whole amount. */
export async function removePaidDue(db: Executor, businessId: string, amountPaise: number) {
  if (isPostgres(db)) return applyDeltas(db, businessId, { totals: { paid_count: -1, paid_paise: -amountPaise } });
  await db
    .updateTable('business_totals')
    .set({ paid_count: sql`paid_count - 1`, paid_paise: sql`paid_paise - ${amountPaise}` })
    .where('business_id', '=', businessId)
    .execute();
}

export async function addContact(db: Executor, businessId: string, count = 1) {
  if (isPostgres(db)) return applyDeltas(db, businessId, { totals: { contact_count: count } });
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
export async function readTotalsColumn(db: Executor, businessId: string, column: TotalsColumn | 'data_version') {
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
