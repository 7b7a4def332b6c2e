import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * PRODUCT part 16: a business sees its keys. `last_used_at` is written at most once a minute per
 * key and process (businesses/key-usage.ts), `source` says where the key was issued: `cli`,
 * `chat` or `dashboard`. Keys issued before this migration came from the CLI.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('api_keys').addColumn('last_used_at', t.timestamp).execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('cli'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('source').execute();
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
}
