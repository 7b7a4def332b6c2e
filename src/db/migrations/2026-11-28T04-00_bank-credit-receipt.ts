import { type Kysely, sql } from 'kysely';

/**
 * A bank credit by the receipt it recorded: reversing that receipt finds its credit by one index
 * probe (and puts it back in the review queue) instead of reading the business's credits.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('bank_credits_receipt')
    .on('bank_credits')
    .column('receipt_id')
    .where(sql.ref('receipt_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bank_credits_receipt').execute();
}
