import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * The business's dashboard (PRODUCT part 14): sign-in codes and one-time links
 * (`dashboard_logins`) and sessions (`dashboard_sessions`). Only SHA-256 hashes of codes, link
 * tokens and session tokens are stored: a copy of the database opens no session.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('dashboard_logins')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    // 'code' (sent over the chat channel to `phone`) or 'link' (from the admin CLI)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .execute();
  // Codes are looked up (and counted for the rate limit) by phone, newest first.
  await db.schema
    .createIndex('dashboard_logins_phone_created')
    .on('dashboard_logins')
    .columns(['phone', 'created_at'])
    .execute();
  await db.schema.createIndex('dashboard_logins_secret').on('dashboard_logins').column('secret_hash').execute();
  // The purge job finds what has expired without a scan.
  await db.schema.createIndex('dashboard_logins_expires').on('dashboard_logins').column('expires_at').execute();

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_expires').on('dashboard_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('dashboard_logins').execute();
}
