import { type Kysely, sql } from 'kysely';

/**
 * An endpoint disabled after 3 days of failures owes its business a chat message: the flag is set
 * in the transaction that disables it and cleared once the message is sent, so a process that
 * stops in between sends it on its next run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('disabled_notice_pending', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_notice_pending')
    .on('webhook_endpoints')
    .column('id')
    .where(sql.ref('disabled_notice_pending'), '=', 1)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_endpoints_notice_pending').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('disabled_notice_pending').execute();
}
