import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * PRODUCT part 11: money in through a payments gateway and confirmed claims.
 *
 * - `payment_claims` gain a decision: `status` (pending, confirmed, rejected) and `decided_at`.
 * - `payment_links`: the gateway's payment links of a due; the newest open one of the due's
 *   balance is reused by the pay page, older ones are cancelled when the balance changes.
 * - `gateway_payments`: one row per payment the gateway reported, keyed by the gateway's payment
 *   id. The primary key is what de-duplicates webhooks: two processes receiving the same webhook
 *   at once both try to insert, and only one insert (and so one payment) commits. A row whose
 *   `unapplied_paise` is above 0 is money the business received but that no due took (the due was
 *   settled or deleted first): kept and listed, never dropped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('payment_claims')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .execute();
  await db.schema.alterTable('payment_claims').addColumn('decided_at', t.timestamp).execute();
  // The business's claims waiting for a decision, newest first (the dashboard's list).
  await db.schema
    .createIndex('payment_claims_business_status_created')
    .on('payment_claims')
    .columns(['business_id', 'status', 'created_at'])
    .execute();

  await db.schema
    .createTable('payment_links')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('transaction_id', t.uuid, (c) => c.notNull().references('transactions.id'))
    .addColumn('gateway_link_id', 'text', (c) => c.notNull().unique())
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('short_url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_links_transaction_created')
    .on('payment_links')
    .columns(['transaction_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('gateway_payments')
    .addColumn('gateway_payment_id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('transaction_id', t.uuid, (c) => c.notNull().references('transactions.id'))
    .addColumn('gateway_link_id', 'text')
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('payment_id', t.uuid, (c) => c.references('payments.id'))
    .addColumn('unapplied_paise', t.money, (c) => c.notNull())
    .addColumn('unapplied_reason', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('gateway_payments_business_created')
    .on('gateway_payments')
    .columns(['business_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('gateway_payments').execute();
  await db.schema.dropTable('payment_links').execute();
  await db.schema.dropIndex('payment_claims_business_status_created').execute();
  await db.schema.alterTable('payment_claims').dropColumn('decided_at').execute();
  await db.schema.alterTable('payment_claims').dropColumn('status').execute();
}
