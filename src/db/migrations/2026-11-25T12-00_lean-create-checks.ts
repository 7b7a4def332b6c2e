import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Issue 26, PostgreSQL only: fewer foreign-key checks per new due. PostgreSQL checks a foreign key
 * by a query of its own per inserted row (`select 1 ... for key share`, which also locks the
 * referenced row), and a create inserts the due and its four automatic reminders: 15 such checks,
 * a fifth of PostgreSQL's CPU per create (profiled under the create bench). A reminder's business
 * and contact are its due's (every writer copies them from the due), and the due's own keys hold
 * them, so a reminder keeps only its key to its due (`reminders_transaction_id_fkey`): 8 checks
 * fewer per create. No business, contact or due is ever deleted (they are soft-deleted), so these
 * keys guarded inserts only, which take both ids from the due.
 *
 * SQLite keeps them: it checks a key by an index probe inside its own statement (no query, no row
 * lock), and dropping a key there means rebuilding the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  await sql`alter table reminders
    drop constraint if exists reminders_business_id_fkey,
    drop constraint if exists reminders_contact_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  await sql`alter table reminders
    add constraint reminders_business_id_fkey foreign key (business_id) references businesses (id),
    add constraint reminders_contact_id_fkey foreign key (contact_id) references contacts (id)`.execute(db);
}
