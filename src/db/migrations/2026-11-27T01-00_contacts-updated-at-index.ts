import type { Kysely } from 'kysely';

/**
 * GET /v1/contacts?since= (an incremental sync, PRODUCT part 26) reads the contacts changed at or
 * after an instant: this index finds them without walking every contact of the business. Every
 * contact already has updated_at (set when created, moved by every change), so nothing to fill.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('contacts_business_updated')
    .on('contacts')
    .columns(['business_id', 'updated_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('contacts_business_updated').execute();
}
