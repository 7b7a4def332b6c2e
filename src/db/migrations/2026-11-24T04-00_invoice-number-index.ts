import type { Kysely } from 'kysely';

/**
 * Bulk import (PRODUCT part 12) refuses a row whose invoice_number already belongs to a due of the
 * business, so that re-running a file creates nothing twice: this index answers that check for a
 * chunk of invoice numbers at once. Not unique: a due created by POST may repeat one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('transactions_business_invoice')
    .on('transactions')
    .columns(['business_id', 'invoice_number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_business_invoice').execute();
}
