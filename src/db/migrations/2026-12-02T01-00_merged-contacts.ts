import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * `merged_contacts`: what a buyer merged into another keeps answering for. The merged contact row
 * is deleted, but its account link has been sent to the buyer and its payment reference is in the
 * buyer's bank app: the link forwards to the kept buyer's page and a bank line naming the
 * reference is matched to the kept buyer. `kept_id` is where it went now (a later merge of the
 * kept buyer moves it on).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('merged_contacts')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('kept_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('account_token', 'text', (c) => c.unique())
    .addColumn('payment_reference', 'text')
    .addColumn('merged_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('merged_contacts_reference')
    .unique()
    .on('merged_contacts')
    .columns(['business_id', 'payment_reference'])
    .execute();
  await db.schema.createIndex('merged_contacts_kept').on('merged_contacts').column('kept_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('merged_contacts').execute();
}
