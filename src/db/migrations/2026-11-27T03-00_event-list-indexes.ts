import type { Kysely } from 'kysely';

/**
 * The events list (GET /v1/events): a business's events oldest first, all of them or one type's,
 * read a page at a time from an index in either case, whatever the business has accumulated.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('events_business_created')
    .on('events')
    .columns(['business_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('events_business_type_created')
    .on('events')
    .columns(['business_id', 'type', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_business_type_created').execute();
  await db.schema.dropIndex('events_business_created').execute();
}
