import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Issue 18, SQLite only (PostgreSQL has its trigram GIN index, 2026-11-24T11-00): an FTS5 table
 * with the trigram tokenizer over contacts.name_key, so that the /v1 contact search of 3 or more
 * characters (contacts/repository.ts) reads the contacts whose name holds the text's trigrams
 * instead of scanning the business's names. External content: the table keeps only the index,
 * keyed by the contact's rowid, and reads names from `contacts`. Triggers keep it in step with
 * every insert, rename (name_key) and delete, whatever code writes them; the rebuild fills it
 * from the contacts already there. The search keeps its exact LIKE test, so the index only
 * narrows the rows read: the results are the same with it as without. Rowids: VACUUM keeps them
 * (checked on the bundled SQLite 3.53, FTS5 integrity-check after); a later migration that
 * rebuilds the contacts table (copying rows under new rowids) must end with the same 'rebuild'.
 * The service reads it only when the text is rare (contacts/repository.ts trigramsNarrow).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (columnTypes(db).isPostgres) return;
  await sql`create virtual table contacts_name_fts using fts5(name_key, content='contacts', content_rowid='rowid', tokenize='trigram')`.execute(
    db,
  );
  await sql`create trigger contacts_name_fts_insert after insert on contacts begin
    insert into contacts_name_fts(rowid, name_key) values (new.rowid, new.name_key);
  end`.execute(db);
  await sql`create trigger contacts_name_fts_delete after delete on contacts begin
    insert into contacts_name_fts(contacts_name_fts, rowid, name_key) values ('delete', old.rowid, old.name_key);
  end`.execute(db);
  await sql`create trigger contacts_name_fts_update after update of name_key on contacts begin
    insert into contacts_name_fts(contacts_name_fts, rowid, name_key) values ('delete', old.rowid, old.name_key);
    insert into contacts_name_fts(rowid, name_key) values (new.rowid, new.name_key);
  end`.execute(db);
  await sql`insert into contacts_name_fts(contacts_name_fts) values ('rebuild')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (columnTypes(db).isPostgres) return;
  await sql`drop trigger if exists contacts_name_fts_update`.execute(db);
  await sql`drop trigger if exists contacts_name_fts_delete`.execute(db);
  await sql`drop trigger if exists contacts_name_fts_insert`.execute(db);
  await sql`drop table if exists contacts_name_fts`.execute(db);
}
