import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Webhook secret rotation: the secret a rotation replaced stays in force (sealed, like the
 * current one) until it expires, so deliveries carry a signature by each meanwhile.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_sealed', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', t.timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_expires_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_sealed').execute();
}
