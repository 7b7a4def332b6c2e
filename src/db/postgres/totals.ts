import { CompiledQuery } from 'kysely';
import type { Executor } from '../schema.js';
import { type DayDelta, TOTALS_COLUMNS, type TotalsDeltas } from '../totals-deltas.js';
import { preparedStatement } from './queries.js';

/**
 * PostgreSQL's running totals (issue 26): each totals table holds up to 16 rows per key, its
 * `shard`s (migration 2026-11-25T01-00), and a transaction writes all its deltas to its
 * connection's shard in one statement (applyTotals), so one business's concurrent writes do not
 * queue on one row through each other's COMMIT. Readers sum the shards. A shard's counts may go
 * below zero (a due created on one shard is paid on another): only the sums mean anything, and a
 * shard's day row is deleted when both its count and paise are 0.
 */

/** A PostgreSQL transaction's shard: its connection's, the same expression as the data version's trigger. */
const SHARD = 'pg_backend_pid() % 16';

/**
 * The transaction-local setting in which the data version's deferred trigger remembers the
 * business whose version the transaction has moved (migration 2026-11-24T08-00).
 */
const DATA_VERSION_MOVED = 'receivables.data_version_moved';

const dayUpsert = (table: 'pending_by_day' | 'open_by_day', first: number) => `
  insert into ${table} as d (business_id, shard, due_date, due_count, due_paise)
  select totals.business_id, totals.shard, x.due_date, x.due_count, x.due_paise
  from totals, unnest($${first}::date[], $${first + 1}::int[], $${first + 2}::bigint[]) as x(due_date, due_count, due_paise)
  on conflict (business_id, due_date, shard)
  do update set due_count = d.due_count + excluded.due_count, due_paise = d.due_paise + excluded.due_paise`;

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
/** APPLY_DELTAS' parameters: the business, one per totals column, then 3 per day table, then the month's 3. */
const FIRST_DAY_PARAM = TOTALS_COLUMNS.length + 2;
const MONTH_PARAM = FIRST_DAY_PARAM + 6;

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

export function totalsDeltasQuery(businessId: string, d: TotalsDeltas): CompiledQuery {
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

/** Applies a write's deltas to its shard (one statement; two when a day may have emptied). */
export async function applyTotals(db: Executor, businessId: string, d: TotalsDeltas): Promise<void> {
  await db.executeQuery(totalsDeltasQuery(businessId, d));
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

/** The sweeper's move of a past day's pending dues to overdue, and the day's shards folded (FOLD_PENDING_DAY). */
export async function movePendingToOverdue(
  db: Executor,
  businessId: string,
  dueDate: string,
  count: number,
  paise: number,
): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(FOLD_PENDING_DAY, [businessId, dueDate, count, paise]));
}
