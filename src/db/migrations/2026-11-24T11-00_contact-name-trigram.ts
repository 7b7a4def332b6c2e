import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Issue 18, PostgreSQL only: a trigram GIN index on contacts.name_key, so that the /v1 contact
 * search (`name_key LIKE '%text%'`, contacts/repository.ts) can be answered from an index rather
 * than a scan of the business's names. The query is unchanged, so the results are the same with
 * or without the index. It needs the pg_trgm extension: when the database user may not create it
 * (or the server does not ship it), the migration leaves a notice and no index, and the search
 * works as before. The exception block runs in its own subtransaction, so a refused CREATE
 * EXTENSION does not abort the migration's transaction. SQLite: nothing (no trigram index there).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  await sql`
    do $$
    begin
      begin
        create extension if not exists pg_trgm;
      exception when others then
        raise notice 'pg_trgm is not available (%): contact search keeps scanning names', sqlerrm;
      end;
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index if not exists contacts_name_key_trgm on contacts using gin (name_key gin_trgm_ops);
      end if;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  await sql`drop index if exists contacts_name_key_trgm`.execute(db);
}
