import { type Kysely, sql } from 'kysely';

/**
 * Fewer B-trees written by each new due (every one is at least a page in the WAL at commit).
 *
 * - transactions_contact (contact_id) duplicated the front of transactions_business_contact_due:
 *   every query by contact also names the business, and contacts are never deleted (no foreign
 *   key check needs it).
 * - A new due's scheduled reminder has no sent_at and no provider message id yet, so the two
 *   indexes on them now hold only reminders that have one: the lookups on them (recent sends of a
 *   contact, a delivery status by message id) compare the column, which implies it is not null,
 *   so both SQLite and PostgreSQL use the partial index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_contact').execute();
  await db.schema.dropIndex('reminders_contact_sent').execute();
  await db.schema
    .createIndex('reminders_contact_sent')
    .on('reminders')
    .columns(['contact_id', 'sent_at'])
    .where(sql.ref('sent_at'), 'is not', null)
    .execute();
  await db.schema.dropIndex('reminders_provider_message').execute();
  await db.schema
    .createIndex('reminders_provider_message')
    .on('reminders')
    .column('provider_message_id')
    .where(sql.ref('provider_message_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('reminders_provider_message').execute();
  await db.schema.createIndex('reminders_provider_message').on('reminders').column('provider_message_id').execute();
  await db.schema.dropIndex('reminders_contact_sent').execute();
  await db.schema.createIndex('reminders_contact_sent').on('reminders').columns(['contact_id', 'sent_at']).execute();
  await db.schema.createIndex('transactions_contact').on('transactions').column('contact_id').execute();
}
