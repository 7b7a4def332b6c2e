import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Bank statements matched to dues. `bank_statements` is one upload; `bank_credits` one credit line,
 * recorded once per business by its fingerprint (date, amount, reference, narration, balance): the
 * unique index is what makes two uploads of one statement, even at once, record each credit once.
 * `bank_payers` remembers who paid for which contact (a UPI id or an account name). The indexes
 * serve the matching's lookups by value: pending claims by reference, open dues by balance,
 * contacts by balance.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('bank_statements')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('lines', 'integer', (c) => c.notNull())
    .addColumn('credits', 'integer', (c) => c.notNull())
    .addColumn('duplicates', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('bank_credits')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('statement_id', t.uuid, (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('date', t.date, (c) => c.notNull())
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('narration', 'text', (c) => c.notNull())
    .addColumn('balance_paise', t.money)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('matched_by', 'text')
    .addColumn('transaction_id', t.uuid)
    .addColumn('contact_id', t.uuid)
    .addColumn('receipt_id', t.uuid)
    .addColumn('suggestions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('decided_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('bank_credits_fingerprint')
    .unique()
    .on('bank_credits')
    .columns(['business_id', 'fingerprint'])
    .execute();
  // The review queue: a business's credits of one status, newest first.
  await db.schema
    .createIndex('bank_credits_status_date')
    .on('bank_credits')
    .columns(['business_id', 'status', 'date', 'id'])
    .execute();
  await db.schema.createIndex('bank_credits_date').on('bank_credits').columns(['business_id', 'date', 'id']).execute();

  await db.schema
    .createTable('bank_payers')
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('contact_id', t.uuid, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('bank_payers_pkey', ['business_id', 'payer'])
    .execute();

  await db.schema
    .createIndex('payment_claims_pending_reference')
    .on('payment_claims')
    .columns(['business_id', 'reference'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('transactions_open_balance')
    .on('transactions')
    .expression(sql`business_id, (amount_paise - amount_paid_paise - amount_adjusted_paise)`)
    .where(sql.ref('open'), '=', 1)
    .execute();
  await db.schema.createIndex('contacts_balance').on('contacts').columns(['business_id', 'balance_paise']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('contacts_balance').execute();
  await db.schema.dropIndex('transactions_open_balance').execute();
  await db.schema.dropIndex('payment_claims_pending_reference').execute();
  await db.schema.dropTable('bank_payers').execute();
  await db.schema.dropTable('bank_credits').execute();
  await db.schema.dropTable('bank_statements').execute();
}
