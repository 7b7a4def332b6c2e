import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * `business_totals.balance_contact_count`: how many of the business's contacts have a
 * `balance_paise` above 0, so that `GET /v1/contacts?has_balance=true` reads its `total` from the
 * totals' few rows instead of counting every contact that owes (100,000 index entries at size).
 *
 * A contact's balance is itself kept by triggers (migrations 2026-11-27T02-00 and 2026-11-28T03-00)
 * on every path that moves a due or a credit, so the count is kept by a trigger on that column, in
 * the same transaction: it moves only when a contact's balance crosses 0 (or a contact holding a
 * balance is added or removed). On PostgreSQL it writes the transaction's connection's shard, as
 * every totals writer does (migration 2026-11-25T01-00): no business-wide row lock. Backfilled
 * from the contacts (on PostgreSQL onto one shard of each business, the lowest).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('business_totals')
    .addColumn('balance_contact_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  const counts = sql`(select count(*) from contacts c
    where c.business_id = business_totals.business_id and c.balance_paise > 0)`;
  if (t.isPostgres) {
    await sql`update business_totals set balance_contact_count = ${counts}
      where shard = (select min(x.shard) from business_totals x where x.business_id = business_totals.business_id)`.execute(
      db,
    );
    await sql`create function contact_balance_count() returns trigger language plpgsql as $$
      declare
        d integer;
        b uuid;
      begin
        if tg_op = 'INSERT' then
          d := (new.balance_paise > 0)::int; b := new.business_id;
        elsif tg_op = 'DELETE' then
          d := -(old.balance_paise > 0)::int; b := old.business_id;
        else
          d := (new.balance_paise > 0)::int - (old.balance_paise > 0)::int; b := new.business_id;
        end if;
        if d <> 0 then
          insert into business_totals as t (business_id, shard, balance_contact_count)
          values (b, pg_backend_pid() % 16, d)
          on conflict (business_id, shard) do update set balance_contact_count = t.balance_contact_count + excluded.balance_contact_count;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger contacts_balance_count
      after insert or delete or update of balance_paise on contacts
      for each row execute function contact_balance_count()`.execute(db);
    return;
  }
  await sql`update business_totals set balance_contact_count = ${counts}`.execute(db);
  const move = (d: string, row: string) =>
    `update business_totals set balance_contact_count = balance_contact_count + ${d} where business_id = ${row}.business_id;`;
  await sql
    .raw(`create trigger contacts_balance_count_insert after insert on contacts
      when new.balance_paise > 0
      begin ${move('1', 'new')} end`)
    .execute(db);
  await sql
    .raw(`create trigger contacts_balance_count_delete after delete on contacts
      when old.balance_paise > 0
      begin ${move('-1', 'old')} end`)
    .execute(db);
  await sql
    .raw(`create trigger contacts_balance_count_update after update of balance_paise on contacts
      when (new.balance_paise > 0) <> (old.balance_paise > 0)
      begin ${move('(new.balance_paise > 0) - (old.balance_paise > 0)', 'new')} end`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (columnTypes(db).isPostgres) {
    await sql`drop trigger contacts_balance_count on contacts`.execute(db);
    await sql`drop function contact_balance_count()`.execute(db);
  } else {
    for (const op of ['insert', 'delete', 'update']) {
      await sql.raw(`drop trigger contacts_balance_count_${op}`).execute(db);
    }
  }
  await db.schema.alterTable('business_totals').dropColumn('balance_contact_count').execute();
}
