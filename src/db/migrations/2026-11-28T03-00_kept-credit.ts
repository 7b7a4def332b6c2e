import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Buyer accounts, second step:
 *
 * - `business_totals.credit_paise`: the business's contacts' unused credit, kept like the other
 *   totals (moved in the transaction that moves a contact's credit), so the summary reads it from
 *   the totals' few rows instead of summing contacts, however many hold credit. Backfilled from
 *   the contacts (on PostgreSQL onto one shard of each business, the lowest).
 * - The contacts' balance triggers also move the contact's `updated_at` when its open balance
 *   moves, to the due's new `updated_at` (or 1 ms past the contact's own, whichever is later, as
 *   db/updated-at.ts nextUpdatedAt): a client syncing contacts by `since` sees every balance change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('business_totals')
    .addColumn('credit_paise', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  const sums = sql`(select coalesce(sum(c.credit_paise), 0) from contacts c
    where c.business_id = business_totals.business_id and c.credit_paise > 0)`;
  if (t.isPostgres) {
    await sql`update business_totals set credit_paise = ${sums}
      where shard = (select min(x.shard) from business_totals x where x.business_id = business_totals.business_id)`.execute(
      db,
    );
  } else {
    await sql`update business_totals set credit_paise = ${sums}`.execute(db);
  }
  await replaceBalanceTriggers(db, t.isPostgres, true);
}

/** A due's open balance in a trigger (`row` is NEW or OLD), as in the khata migration. */
const openBalance = (row: string) =>
  `(case when ${row}.open = 1 then ${row}.amount_paise - ${row}.amount_paid_paise - ${row}.amount_adjusted_paise else 0 end)`;

async function replaceBalanceTriggers(db: Kysely<unknown>, postgres: boolean, stamp: boolean) {
  if (postgres) {
    const updatedAt = stamp ? `, updated_at = greatest(new.updated_at, updated_at + interval '1 millisecond')` : '';
    await sql
      .raw(`create or replace function contact_open_balance() returns trigger language plpgsql as $$
      declare d bigint;
      begin
        if tg_op = 'INSERT' then d := ${openBalance('new')};
        else d := ${openBalance('new')} - ${openBalance('old')};
        end if;
        if d <> 0 then
          update contacts set open_paise = open_paise + d, balance_paise = balance_paise + d${updatedAt}
          where id = new.contact_id;
        end if;
        return null;
      end $$`)
      .execute(db);
    return;
  }
  const updatedAt = stamp
    ? `, updated_at = max(new.updated_at, strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '+0.001 seconds'))`
    : '';
  await sql`drop trigger transactions_contact_balance_insert`.execute(db);
  await sql`drop trigger transactions_contact_balance_update`.execute(db);
  await sql
    .raw(`create trigger transactions_contact_balance_insert after insert on transactions
      when new.open = 1
      begin
        update contacts set open_paise = open_paise + ${openBalance('new')},
          balance_paise = balance_paise + ${openBalance('new')}${updatedAt} where id = new.contact_id;
      end`)
    .execute(db);
  const d = `(${openBalance('new')} - ${openBalance('old')})`;
  await sql
    .raw(`create trigger transactions_contact_balance_update
      after update of amount_paise, amount_paid_paise, amount_adjusted_paise, open on transactions
      when ${d} <> 0
      begin
        update contacts set open_paise = open_paise + ${d}, balance_paise = balance_paise + ${d}${updatedAt}
        where id = new.contact_id;
      end`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replaceBalanceTriggers(db, columnTypes(db).isPostgres, false);
  await db.schema.alterTable('business_totals').dropColumn('credit_paise').execute();
}
