import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Issue 26, PostgreSQL only: the business's data version (2026-11-23T01-00) moves at COMMIT
 * instead of at the first change to a due or contact. The statement triggers took the business's
 * totals row lock on a create's first INSERT and held it across every later round trip of the
 * transaction, so one business's writes ran one after another. Now deferred constraint triggers
 * (row-level: constraint triggers cannot be statement-level) move it when the transaction commits,
 * after its last statement, once per business in a row of changes: a transaction-local setting
 * remembers the business last moved, so the sweeper's batch moves each business about once.
 * SQLite keeps its row triggers (one writer at a time: no lock to hold).
 *
 * Also PostgreSQL only: a NOTIFY on KEYS_CHANNEL from every change to the API keys (issued,
 * revoked, deleted) or to a business (its plan, its expiry), by any process: each API process keeps
 * the keys it authenticated while no such notification has come (db/store.ts, businesses/service.ts),
 * instead of reading the key on every request.
 */
export const KEYS_CHANNEL = 'receivables_keys';
const TABLES = ['transactions', 'contacts'] as const;
const EVENTS = ['insert', 'update', 'delete'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  for (const table of TABLES) {
    for (const event of EVENTS) {
      await sql`drop trigger ${sql.id(`${table}_data_version_${event}`)} on ${sql.table(table)}`.execute(db);
    }
  }
  await sql`drop function bump_business_data_version()`.execute(db);
  await sql`
    create function bump_business_data_version_at_commit() returns trigger language plpgsql as $$
    declare
      b text := case when tg_op = 'DELETE' then old.business_id::text else new.business_id::text end;
    begin
      if current_setting('receivables.data_version_moved', true) is distinct from b then
        update business_totals set data_version = data_version + 1 where business_id = b::uuid;
        perform set_config('receivables.data_version_moved', b, true);
      end if;
      return null;
    end $$`.execute(db);
  for (const table of TABLES) {
    await sql`
      create constraint trigger ${sql.id(`${table}_data_version_at_commit`)}
      after insert or update or delete on ${sql.table(table)}
      deferrable initially deferred
      for each row execute function bump_business_data_version_at_commit()`.execute(db);
  }
  await sql`
    create function notify_keys_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(KEYS_CHANNEL)}, '');
      return null;
    end $$`.execute(db);
  // Only the columns a cached key depends on: a future "last used" stamp must not flush the cache.
  await sql`
    create trigger api_keys_changed after insert or delete or update of business_id, key_hash, revoked_at
    on api_keys for each statement execute function notify_keys_changed()`.execute(db);
  await sql`
    create trigger businesses_changed after update or delete on businesses
    for each statement execute function notify_keys_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!columnTypes(db).isPostgres) return;
  await sql`drop trigger api_keys_changed on api_keys`.execute(db);
  await sql`drop trigger businesses_changed on businesses`.execute(db);
  await sql`drop function notify_keys_changed()`.execute(db);
  for (const table of TABLES) {
    await sql`drop trigger ${sql.id(`${table}_data_version_at_commit`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function bump_business_data_version_at_commit()`.execute(db);
  await sql`
    create function bump_business_data_version() returns trigger language plpgsql as $$
    begin
      update business_totals set data_version = data_version + 1
       where business_id in (select distinct business_id from changed);
      return null;
    end $$`.execute(db);
  const images = { insert: 'new', update: 'new', delete: 'old' } as const;
  for (const table of TABLES) {
    for (const event of EVENTS) {
      await sql`
        create trigger ${sql.id(`${table}_data_version_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
        referencing ${sql.raw(images[event])} table as changed
        for each statement execute function bump_business_data_version()`.execute(db);
    }
  }
}
