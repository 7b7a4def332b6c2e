import type { Kysely } from 'kysely';

/**
 * `GET /v1/audit-log?entity=` (one kind of entity, any id) read newest first from an index of its
 * own: by business and entity there was an index only with entity_id between, so a page of one
 * kind either walked the business's entries until it found enough of that kind (a rare kind, such
 * as api_key among a million dues, walked them all) or sorted every entry of the kind. Same
 * statement on both stores.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('audit_log_business_kind')
    .on('audit_log')
    .columns(['business_id', 'entity', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_business_kind').execute();
}
