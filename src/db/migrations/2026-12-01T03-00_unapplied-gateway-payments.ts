import { type Kysely, sql } from 'kysely';

/**
 * The business's gateway payments that no due took (`unapplied_paise > 0`), newest first: Home
 * and GET /v1/payments/unapplied read a page of these and count them. They walked every gateway
 * payment of the business by (business_id, created_at) to find the few unapplied ones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('gateway_payments_unapplied')
    .on('gateway_payments')
    .columns(['business_id', 'created_at', 'gateway_payment_id'])
    .where(sql.ref('unapplied_paise'), '>', sql.lit(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('gateway_payments_unapplied').execute();
}
