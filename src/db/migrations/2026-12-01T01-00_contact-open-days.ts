import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * A contact's standing kept, so that reading it costs the same whatever the contact's history:
 *
 * - `contacts.due_count`: its dues not deleted (the standing's total_transactions), kept by the
 *   contact balance trigger (khata migration), which already updates the contact on every due
 *   written or settled.
 * - `contact_open_days`: its open dues by date. Per contact and day, the open dues due that day
 *   (`due_count`, their open balances `balance_paise`: the pending/overdue split, the oldest overdue
 *   date and the statement's aging) and `scored_paise`: the amounts of the open dues due that day
 *   plus the amounts of the open dues promised for that day. An open due scores as of today by its
 *   amount and how far its date (or its broken promise's date) is behind today, so the score's open
 *   part is one term per day before today (lib/payment-score.ts). A read costs the days the
 *   contact's open dues fall on, not its dues.
 * - `transactions_contact_paid_due`: the contact's paid dues by due date (partial). The score reads
 *   the paid dues dated after today from rows (their kept terms age from their date); this index
 *   finds those alone instead of walking the contact's future open dues too.
 *
 * The days are kept by row triggers on transactions, as the contacts' balances are: every way a due
 * is written or changed (API, import, chat, bank, claims, the PostgreSQL one-statement create)
 * moves its days in the same transaction. A row whose count and amounts are back to zero is
 * removed, so the days held are the days with open dues or open promises. The triggers watch
 * amounts, dates and `open`, not contact_id: a merge moves the merged buyer's days itself
 * (contact-merge/repository.ts), as it moves its kept balances.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // PostgreSQL runs pending migrations in one transaction: updates of contacts queued by earlier
  // migrations (data-version triggers, deferred to COMMIT) would forbid altering the table.
  if (t.isPostgres) await sql`set constraints all immediate`.execute(db);
  await db.schema
    .createTable('contact_open_days')
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('day', t.date, (c) => c.notNull())
    .addColumn('due_count', 'integer', (c) => c.notNull())
    .addColumn('balance_paise', t.money, (c) => c.notNull())
    .addColumn('scored_paise', t.money, (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_open_days_pk', ['contact_id', 'day'])
    .execute();
  if (t.isPostgres) {
    // Its rows are updated in place on every payment of a due (no indexed column changes): with
    // room left on each page the new version stays on it (a HOT update, no new index entry) and
    // the dead one is pruned there. Full pages gave every update a new index entry, so a buyer's
    // days read thousands of dead versions until autovacuum, which by default waits for a fifth
    // of the table to be dead (seen: 10.5 ms for 24 live days, 0.14 ms after a vacuum).
    await sql`alter table contact_open_days set (fillfactor = 70, autovacuum_vacuum_scale_factor = 0.01)`.execute(db);
  }
  await db.schema
    .createIndex('transactions_contact_paid_due')
    .on('transactions')
    .columns(['contact_id', 'due_date'])
    .where(sql.ref('open'), '=', 0)
    .execute();
  await db.schema
    .alterTable('contacts')
    .addColumn('due_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await sql
    .raw(`insert into contact_open_days (contact_id, day, due_count, balance_paise, scored_paise)
      select contact_id, day, sum(n), sum(b), sum(s) from (
        select contact_id, due_date as day, 1 as n, ${balance('transactions')} as b, amount_paise as s
          from transactions where open = 1
        union all
        select contact_id, promise_date, 0, 0, amount_paise
          from transactions where open = 1 and promise_date is not null
      ) x group by contact_id, day`)
    .execute(db);
  if (t.isPostgres) await createPostgresTriggers(db);
  else await createSqliteTriggers(db);
  // Last (PostgreSQL): updating contacts queues their data-version triggers.
  await sql`update contacts set due_count = d.n from (
      select contact_id, count(*) as n from transactions where open >= 0 group by contact_id) d
    where d.contact_id = contacts.id`.execute(db);
  if (t.isPostgres) await sql`set constraints all immediate`.execute(db);
}

/** A due's open balance (`row` is NEW, OLD or the table). */
const balance = (row: string) => `(${row}.amount_paise - ${row}.amount_paid_paise - ${row}.amount_adjusted_paise)`;

/** What an open due (`row`) holds in its days: [day, due_count, balance_paise, scored_paise], the promise's when set. */
const parts = (row: string) => [
  { day: `${row}.due_date`, n: '1', b: balance(row), s: `${row}.amount_paise` },
  { day: `${row}.promise_date`, n: '0', b: '0', s: `${row}.amount_paise` },
];

const WATCHED = ['open', 'due_date', 'promise_date', 'amount_paise', 'amount_paid_paise', 'amount_adjusted_paise'];

async function createPostgresTriggers(db: Kysely<unknown>) {
  await sql
    .raw(`create function contact_open_day_add(c uuid, d date, n integer, b bigint, s bigint) returns void language plpgsql as $$
      begin
        if d is not null then
          insert into contact_open_days (contact_id, day, due_count, balance_paise, scored_paise) values (c, d, n, b, s)
          on conflict (contact_id, day) do update set due_count = contact_open_days.due_count + excluded.due_count,
            balance_paise = contact_open_days.balance_paise + excluded.balance_paise,
            scored_paise = contact_open_days.scored_paise + excluded.scored_paise;
        end if;
      end $$`)
    .execute(db);
  const add = (row: string, sign: string) =>
    parts(row)
      .map(
        (p) =>
          `perform contact_open_day_add(${row}.contact_id, ${p.day}, ${sign}${p.n}, ${sign}${p.b}, ${sign}${p.s});`,
      )
      .join('\n');
  await sql
    .raw(`create function transactions_open_day() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and old.open = 1 then
          ${add('old', '-')}
        end if;
        if new.open = 1 then
          ${add('new', '')}
        end if;
        if tg_op = 'UPDATE' and old.open = 1 then
          delete from contact_open_days where contact_id = old.contact_id and day in (old.due_date, old.promise_date)
            and due_count = 0 and scored_paise = 0;
        end if;
        return null;
      end $$`)
    .execute(db);
  await sql
    .raw(`create trigger transactions_open_day_insert after insert on transactions
      for each row when (new.open = 1) execute function transactions_open_day()`)
    .execute(db);
  await sql
    .raw(`create trigger transactions_open_day_update after update of ${WATCHED.join(', ')} on transactions
      for each row when ((old.open = 1 or new.open = 1) and (${WATCHED.map((c) => `old.${c} is distinct from new.${c}`).join(' or ')}))
      execute function transactions_open_day()`)
    .execute(db);
  // The contact balance trigger counts the dues not deleted too.
  await sql
    .raw(`create or replace function contact_open_balance() returns trigger language plpgsql as $$
      declare d bigint; n integer;
      begin
        if tg_op = 'INSERT' then
          d := ${openBalance('new')};
          n := case when new.open >= 0 then 1 else 0 end;
        else
          d := ${openBalance('new')} - ${openBalance('old')};
          n := (case when new.open >= 0 then 1 else 0 end) - (case when old.open >= 0 then 1 else 0 end);
        end if;
        if d <> 0 or n <> 0 then
          update contacts set open_paise = open_paise + d, balance_paise = balance_paise + d, due_count = due_count + n${PG_STAMP}
            where id = new.contact_id;
        end if;
        return null;
      end $$`)
    .execute(db);
}

/**
 * The contact's `updated_at` moves with it (as the kept-credit migration's triggers): to the due's,
 * or 1 ms past its own, whichever is later.
 */
const PG_STAMP = `, updated_at = greatest(new.updated_at, updated_at + interval '1 millisecond')`;
const SQLITE_STAMP = `, updated_at = max(new.updated_at, strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '+0.001 seconds'))`;

/** A due's open balance while open, else 0 (as the khata migration's balance triggers). */
const openBalance = (row: string) => `(case when ${row}.open = 1 then ${balance(row)} else 0 end)`;

async function createSqliteTriggers(db: Kysely<unknown>) {
  // One upsert per part; `where` also keeps SQLite from reading ON CONFLICT as a join's.
  const add = (row: string, sign: string) =>
    parts(row)
      .map(
        (p) => `insert into contact_open_days (contact_id, day, due_count, balance_paise, scored_paise)
          select ${row}.contact_id, ${p.day}, ${sign}${p.n}, ${sign}${p.b}, ${sign}${p.s}
            where ${row}.open = 1 and ${p.day} is not null
          on conflict (contact_id, day) do update set due_count = due_count + excluded.due_count,
            balance_paise = balance_paise + excluded.balance_paise, scored_paise = scored_paise + excluded.scored_paise;`,
      )
      .join('\n');
  await sql
    .raw(`create trigger transactions_open_day_insert after insert on transactions when new.open = 1
      begin
        ${add('new', '')}
      end`)
    .execute(db);
  // The old parts out, the new parts in, then the old days left empty removed.
  await sql
    .raw(`create trigger transactions_open_day_update after update of ${WATCHED.join(', ')} on transactions
      when (old.open = 1 or new.open = 1) and (${WATCHED.map((c) => `old.${c} is not new.${c}`).join(' or ')})
      begin
        ${add('old', '-')}
        ${add('new', '')}
        delete from contact_open_days where old.open = 1 and contact_id = old.contact_id
          and day in (old.due_date, old.promise_date) and due_count = 0 and scored_paise = 0;
      end`)
    .execute(db);
  // The contact balance triggers count the dues not deleted too.
  await sql`drop trigger transactions_contact_balance_insert`.execute(db);
  await sql`drop trigger transactions_contact_balance_update`.execute(db);
  await sql
    .raw(`create trigger transactions_contact_balance_insert after insert on transactions
      when new.open >= 0
      begin
        update contacts set open_paise = open_paise + ${openBalance('new')},
          balance_paise = balance_paise + ${openBalance('new')}, due_count = due_count + 1${SQLITE_STAMP}
          where id = new.contact_id;
      end`)
    .execute(db);
  const d = `(${openBalance('new')} - ${openBalance('old')})`;
  const n = '((new.open >= 0) - (old.open >= 0))';
  await sql
    .raw(`create trigger transactions_contact_balance_update
      after update of amount_paise, amount_paid_paise, amount_adjusted_paise, open on transactions
      when ${d} <> 0 or ${n} <> 0
      begin
        update contacts set open_paise = open_paise + ${d}, balance_paise = balance_paise + ${d},
          due_count = due_count + ${n}${SQLITE_STAMP} where id = new.contact_id;
      end`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = columnTypes(db).isPostgres;
  if (postgres) {
    await sql`drop trigger transactions_open_day_insert on transactions`.execute(db);
    await sql`drop trigger transactions_open_day_update on transactions`.execute(db);
    await sql`drop function transactions_open_day()`.execute(db);
    await sql`drop function contact_open_day_add(uuid, date, integer, bigint, bigint)`.execute(db);
    await sql
      .raw(`create or replace function contact_open_balance() returns trigger language plpgsql as $$
      declare d bigint;
      begin
        if tg_op = 'INSERT' then d := ${openBalance('new')};
        else d := ${openBalance('new')} - ${openBalance('old')};
        end if;
        if d <> 0 then
          update contacts set open_paise = open_paise + d, balance_paise = balance_paise + d${PG_STAMP}
          where id = new.contact_id;
        end if;
        return null;
      end $$`)
      .execute(db);
  } else {
    await sql`drop trigger transactions_open_day_insert`.execute(db);
    await sql`drop trigger transactions_open_day_update`.execute(db);
    await sql`drop trigger transactions_contact_balance_insert`.execute(db);
    await sql`drop trigger transactions_contact_balance_update`.execute(db);
    await sql
      .raw(`create trigger transactions_contact_balance_insert after insert on transactions when new.open = 1
      begin
        update contacts set open_paise = open_paise + ${openBalance('new')},
          balance_paise = balance_paise + ${openBalance('new')}${SQLITE_STAMP} where id = new.contact_id;
      end`)
      .execute(db);
    const d = `(${openBalance('new')} - ${openBalance('old')})`;
    await sql
      .raw(`create trigger transactions_contact_balance_update
      after update of amount_paise, amount_paid_paise, amount_adjusted_paise, open on transactions
      when ${d} <> 0
      begin
        update contacts set open_paise = open_paise + ${d}, balance_paise = balance_paise + ${d}${SQLITE_STAMP}
        where id = new.contact_id;
      end`)
      .execute(db);
  }
  await db.schema.alterTable('contacts').dropColumn('due_count').execute();
  await db.schema.dropIndex('transactions_contact_paid_due').execute();
  await db.schema.dropTable('contact_open_days').execute();
}
