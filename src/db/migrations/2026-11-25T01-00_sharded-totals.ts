import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Issue 26, PostgreSQL only: the running totals in up to 16 rows per business (a `shard` key in
 * each additive aggregate: business_totals, pending_by_day, open_by_day, paid_by_month), so that
 * one business's concurrent writes do not queue on one row through each other's COMMIT (and its
 * WAL flush). A transaction writes every delta it makes (totals, days, month, data version) to the
 * one shard of its connection, `pg_backend_pid() % 16`: rows are made on first use, readers sum the
 * shards (at most 16 rows: still O(1)). Existing rows become shard 0, so the sums start equal to
 * what was stored.
 *
 * The data version's deferred trigger (2026-11-24T08-00) moves the same connection's shard, so a
 * transaction locks only rows of its own shard, totals first: one lock order, no deadlock.
 *
 * SQLite has one writer at a time: its tables keep one row per key (no shard column), and the
 * same readers' sums read that one row.
 */
const SHARD = sql.raw('pg_backend_pid() % 16');
const DAY_TABLES = ['pending_by_day', 'open_by_day'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  for (const table of ['business_totals', ...DAY_TABLES, 'paid_by_month'] as const) {
    await sql`alter table ${sql.table(table)} add column shard smallint not null default 0`.execute(db);
  }
  await sql`alter table business_totals drop constraint business_totals_pkey`.execute(db);
  await sql`alter table business_totals add constraint business_totals_pkey primary key (business_id, shard)`.execute(
    db,
  );
  // The day before the shard: a business's range of days reads each day's shards together.
  for (const table of DAY_TABLES) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_pk`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_pk`)}
      primary key (business_id, due_date, shard)`.execute(db);
  }
  await sql`alter table paid_by_month drop constraint paid_by_month_pk`.execute(db);
  await sql`alter table paid_by_month add constraint paid_by_month_pk primary key (business_id, month, shard)`.execute(
    db,
  );
  // A shard's totals row is made by whichever write comes first: every count starts at 0.
  await sql`
    create or replace function bump_business_data_version_at_commit() returns trigger language plpgsql as $$
    declare
      b text := case when tg_op = 'DELETE' then old.business_id::text else new.business_id::text end;
    begin
      if current_setting('receivables.data_version_moved', true) is distinct from b then
        insert into business_totals as t (business_id, shard, data_version) values (b::uuid, ${SHARD}, 1)
        on conflict (business_id, shard) do update set data_version = t.data_version + 1;
        perform set_config('receivables.data_version_moved', b, true);
      end if;
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  await sql`
    create or replace function bump_business_data_version_at_commit() returns trigger language plpgsql as $$
    declare
      b text := case when tg_op = 'DELETE' then old.business_id::text else new.business_id::text end;
    begin
      if current_setting('receivables.data_version_moved', true) is distinct from b then
        update business_totals set data_version = data_version + 1 where business_id = b::uuid;
        perform set_config('receivables.data_version_moved', b, true);
      end if;
      return null;
    end $$`.execute(db);
  // The shards folded back into one row per key.
  const columns = {
    business_totals: [
      'pending_count',
      'pending_paise',
      'overdue_count',
      'overdue_paise',
      'paid_count',
      'paid_paise',
      'contact_count',
      'data_version',
    ],
    pending_by_day: ['due_count', 'due_paise'],
    open_by_day: ['due_count', 'due_paise'],
    paid_by_month: ['due_count', 'due_paise'],
  } as const;
  const keys = {
    business_totals: ['business_id'],
    pending_by_day: ['business_id', 'due_date'],
    open_by_day: ['business_id', 'due_date'],
    paid_by_month: ['business_id', 'month'],
  } as const;
  const pk = {
    business_totals: 'business_totals_pkey',
    pending_by_day: 'pending_by_day_pk',
    open_by_day: 'open_by_day_pk',
    paid_by_month: 'paid_by_month_pk',
  } as const;
  for (const table of Object.keys(columns) as (keyof typeof columns)[]) {
    const key = sql.join(keys[table].map((k) => sql.ref(k)));
    const sums = sql.join(columns[table].map((c) => sql`${sql.ref(c)} = s.${sql.ref(c)}`));
    const summed = sql.join(columns[table].map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`));
    const join = sql.join(
      keys[table].map((k) => sql`t.${sql.ref(k)} = s.${sql.ref(k)}`),
      sql` and `,
    );
    await sql`update ${sql.table(table)} as t set ${sums}
      from (select ${key}, ${summed} from ${sql.table(table)} group by ${key}) s
      where ${join} and t.shard = 0`.execute(db);
    await sql`insert into ${sql.table(table)} (${key}, shard, ${sql.join(columns[table].map((c) => sql.ref(c)))})
      select ${key}, 0, ${summed} from ${sql.table(table)} o group by ${key}
      having not bool_or(o.shard = 0)`.execute(db);
    await sql`delete from ${sql.table(table)} where shard <> 0`.execute(db);
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(pk[table])}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(pk[table])} primary key (${key})`.execute(db);
    await sql`alter table ${sql.table(table)} drop column shard`.execute(db);
  }
}
