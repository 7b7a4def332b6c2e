import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * `contact_ledger_months`: per contact and month, the sum of what moved the contact's statement
 * balance in that month (debits less credits): its dues (not deleted) on the month they were
 * created, its receipts (less) on the month of their received_on, their reversals on the month
 * they were reversed, its adjustments (less) on the month they were made. A statement's opening
 * balance is the sum of the months before its period's month plus the entries of that month
 * before `from` (statements/service.ts): O(months + entries in the period), not O(history).
 *
 * The month of a time (created_at, reversed_at) is its UTC month, `YYYY-MM`, whatever the
 * business's time zone (which a trigger on SQLite cannot apply and an owner may change); the
 * month of received_on (a business-local date) is its own. The statement reads from a month
 * that starts before both its `from` date and `from`'s first instant.
 *
 * Kept as the contacts' open balances are (khata migration): by row triggers on the tables whose
 * rows are the entries, so every way an entry is written or changed (API, import, chat, bank,
 * claims, the PostgreSQL one-statement create) moves its month in the same transaction. The
 * triggers watch amounts, dates and deletion, not contact_id: a merge moves the merged buyer's
 * months itself (contact-merge/repository.ts), as it moves its kept balances.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('contact_ledger_months')
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('paise', t.money, (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_ledger_months_pk', ['contact_id', 'month'])
    .execute();
  // verify reads a business's months.
  await db.schema
    .createIndex('contact_ledger_months_business')
    .on('contact_ledger_months')
    .columns(['business_id', 'contact_id', 'month'])
    .execute();
  const e = entries(t.isPostgres);
  await sql
    .raw(`insert into contact_ledger_months (contact_id, month, business_id, paise)
      select contact_id, month, business_id, sum(paise) from (
        select contact_id, ${e.time('created_at')} as month, business_id, amount_paise as paise
          from transactions where deleted_at is null
        union all
        select contact_id, ${e.date('received_on')}, business_id, -amount_paise from receipts
        union all
        select contact_id, ${e.time('reversed_at')}, business_id, amount_paise from receipts where reversed_at is not null
        union all
        select contact_id, ${e.time('created_at')}, business_id, -amount_paise from adjustments
      ) x group by contact_id, month, business_id having sum(paise) <> 0`)
    .execute(db);
  if (t.isPostgres) await createPostgresTriggers(db);
  else await createSqliteTriggers(db);
}

/** The month of a timestamp and of a date, in each store's SQL (as the text `YYYY-MM`). */
function entries(postgres: boolean) {
  return postgres
    ? {
        time: (x: string) => `to_char(${x} at time zone 'UTC', 'YYYY-MM')`,
        date: (x: string) => `to_char(${x}, 'YYYY-MM')`,
      }
    : { time: (x: string) => `substr(${x}, 1, 7)`, date: (x: string) => `substr(${x}, 1, 7)` };
}

/**
 * What each row adds to which month (`row` is NEW or OLD): a due its amount while not deleted, a
 * receipt less its amount, and its amount back once reversed, an adjustment less its amount.
 */
function moves(postgres: boolean) {
  const e = entries(postgres);
  return {
    transactions: (row: string) => [
      {
        month: e.time(`${row}.created_at`),
        paise: `(case when ${row}.deleted_at is null then ${row}.amount_paise else 0 end)`,
      },
    ],
    receipts: (row: string) => [
      { month: e.date(`${row}.received_on`), paise: `(-${row}.amount_paise)` },
      {
        month: `coalesce(${e.time(`${row}.reversed_at`)}, '')`,
        paise: `(case when ${row}.reversed_at is null then 0 else ${row}.amount_paise end)`,
      },
    ],
    adjustments: (row: string) => [{ month: e.time(`${row}.created_at`), paise: `(-${row}.amount_paise)` }],
  } as const;
}

/** The columns whose change moves an entry's month or amount. */
const WATCHED = {
  transactions: ['amount_paise', 'created_at', 'deleted_at'],
  receipts: ['amount_paise', 'received_on', 'reversed_at'],
  adjustments: ['amount_paise', 'created_at'],
} as const;
type Table = keyof typeof WATCHED;
const TABLES = Object.keys(WATCHED) as Table[];

const changed = (table: Table, postgres: boolean) =>
  WATCHED[table]
    .map((c) => (postgres ? `old.${c} is distinct from new.${c}` : `old.${c} is not new.${c}`))
    .join(' or ');

async function createPostgresTriggers(db: Kysely<unknown>) {
  await sql
    .raw(`create function contact_ledger_month_add(c uuid, m text, b uuid, p bigint) returns void language plpgsql as $$
      begin
        if p <> 0 then
          insert into contact_ledger_months (contact_id, month, business_id, paise) values (c, m, b, p)
          on conflict (contact_id, month) do update set paise = contact_ledger_months.paise + excluded.paise;
        end if;
      end $$`)
    .execute(db);
  const m = moves(true);
  for (const table of TABLES) {
    const add = (row: string, sign: string) =>
      m[table](row)
        .map(
          (x) =>
            `perform contact_ledger_month_add(${row}.contact_id, ${x.month}, ${row}.business_id, ${sign}${x.paise});`,
        )
        .join('\n');
    await sql
      .raw(`create function ${table}_ledger_month() returns trigger language plpgsql as $$
        begin
          if tg_op = 'UPDATE' then
            ${add('old', '-')}
          end if;
          ${add('new', '')}
          return null;
        end $$`)
      .execute(db);
    await sql
      .raw(`create trigger ${table}_ledger_month_insert after insert on ${table}
        for each row execute function ${table}_ledger_month()`)
      .execute(db);
    await sql
      .raw(`create trigger ${table}_ledger_month_update after update of ${WATCHED[table].join(', ')} on ${table}
        for each row when (${changed(table, true)}) execute function ${table}_ledger_month()`)
      .execute(db);
  }
}

async function createSqliteTriggers(db: Kysely<unknown>) {
  const m = moves(false);
  for (const table of TABLES) {
    // One upsert per move; `where true` keeps SQLite from reading ON CONFLICT as a join's.
    const add = (row: string, sign: string) =>
      m[table](row)
        .map(
          (x) => `insert into contact_ledger_months (contact_id, month, business_id, paise)
            select ${row}.contact_id, ${x.month}, ${row}.business_id, ${sign}${x.paise} where ${x.paise} <> 0
            on conflict (contact_id, month) do update set paise = paise + excluded.paise;`,
        )
        .join('\n');
    await sql
      .raw(`create trigger ${table}_ledger_month_insert after insert on ${table}
        begin
          ${add('new', '')}
        end`)
      .execute(db);
    await sql
      .raw(`create trigger ${table}_ledger_month_update after update of ${WATCHED[table].join(', ')} on ${table}
        when ${changed(table, false)}
        begin
          ${add('old', '-')}
          ${add('new', '')}
        end`)
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = columnTypes(db).isPostgres;
  for (const table of TABLES) {
    if (postgres) {
      await sql.raw(`drop trigger ${table}_ledger_month_insert on ${table}`).execute(db);
      await sql.raw(`drop trigger ${table}_ledger_month_update on ${table}`).execute(db);
      await sql.raw(`drop function ${table}_ledger_month()`).execute(db);
    } else {
      await sql.raw(`drop trigger ${table}_ledger_month_insert`).execute(db);
      await sql.raw(`drop trigger ${table}_ledger_month_update`).execute(db);
    }
  }
  if (postgres) await sql`drop function contact_ledger_month_add(uuid, text, uuid, bigint)`.execute(db);
  await db.schema.dropTable('contact_ledger_months').execute();
}
