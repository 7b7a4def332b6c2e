import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * The audit log: one row per change to money or to who may act, written in the change's own
 * transaction (src/audit/). Read newest first by business, or by one entity of a business, from an
 * index either way (ids are time-ordered uuids), whatever the business has accumulated.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('audit_log')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull())
    .addColumn('at', t.timestamp, (c) => c.notNull())
    // user | api_key | chat | system
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    // JSON text {field: [before, after]}
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .execute();
  await db.schema.createIndex('audit_log_business').on('audit_log').columns(['business_id', 'id']).execute();
  await db.schema
    .createIndex('audit_log_business_entity')
    .on('audit_log')
    .columns(['business_id', 'entity', 'entity_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
