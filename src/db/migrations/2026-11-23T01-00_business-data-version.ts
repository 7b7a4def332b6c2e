import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * A version per business that moves with every change to its dues or contacts, in the same
 * database transaction: rendered list pages are kept while it stands still
 * (http/rendered.ts). Triggers move it, so no write path (another process, a future endpoint, a
 * manual fix) can change a page's rows without the page being dropped. A due's or a contact's
 * business never changes, so the row's own business is the one to move.
 *
 * SQLite: row triggers (a row's change and the UPDATE of its business's totals page are cheap).
 * PostgreSQL: statement triggers over the changed rows, so that a batch (the overdue sweep) moves
 * each business once instead of writing a new version of its totals row per due.
 */
const TABLES = ['transactions', 'contacts'] as const;
const EVENTS = [
  ['insert', 'new'],
  ['update', 'new'],
  ['delete', 'old'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('business_totals')
    .addColumn('data_version', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  if (t.isPostgres) {
    await sql`
      create function bump_business_data_version() returns trigger language plpgsql as $$
      begin
        update business_totals set data_version = data_version + 1
         where business_id in (select distinct business_id from changed);
        return null;
      end $$`.execute(db);
    for (const table of TABLES) {
      for (const [event, image] of EVENTS) {
        await sql`
          create trigger ${sql.id(`${table}_data_version_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
          referencing ${sql.raw(image)} table as changed
          for each statement execute function bump_business_data_version()`.execute(db);
      }
    }
    return;
  }
  for (const table of TABLES) {
    for (const [event, image] of EVENTS) {
      await sql`
        create trigger ${sql.id(`${table}_data_version_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
        begin
          update business_totals set data_version = data_version + 1
           where business_id = ${sql.raw(image)}.business_id;
        end`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  for (const table of TABLES) {
    for (const [event] of EVENTS) {
      if (t.isPostgres)
        await sql`drop trigger ${sql.id(`${table}_data_version_${event}`)} on ${sql.table(table)}`.execute(db);
      else await sql`drop trigger ${sql.id(`${table}_data_version_${event}`)}`.execute(db);
    }
  }
  if (t.isPostgres) await sql`drop function bump_business_data_version()`.execute(db);
  await db.schema.alterTable('business_totals').dropColumn('data_version').execute();
}
