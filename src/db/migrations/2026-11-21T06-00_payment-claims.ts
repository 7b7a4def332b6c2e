import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * "I have paid" claims made on the hosted pay page (PRODUCT part 8). No client address is kept:
 * the rate limit is per due, and a hash of an IPv4 address is no real anonymisation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('payment_claims')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('transaction_id', t.uuid, (c) => c.notNull().references('transactions.id'))
    .addColumn('reference', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  // The pay page shows the latest claim of its due.
  await db.schema
    .createIndex('payment_claims_transaction_created')
    .on('payment_claims')
    .columns(['transaction_id', 'created_at desc'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('payment_claims').execute();
}
