import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  await db.schema
    .createTable('businesses')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('plan_expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('upi_id', 'text')
    .addColumn('reminders_paused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('businesses_phone').on('businesses').column('phone').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('revoked_at', t.timestamp)
    .execute();
  await db.schema.createIndex('api_keys_business').on('api_keys').column('business_id').execute();

  await db.schema
    .createTable('business_totals')
    .addColumn('business_id', t.uuid, (c) => c.primaryKey().references('businesses.id'))
    .addColumn('pending_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pending_paise', t.money, (c) => c.notNull().defaultTo(0))
    .addColumn('overdue_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('overdue_paise', t.money, (c) => c.notNull().defaultTo(0))
    .addColumn('paid_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('paid_paise', t.money, (c) => c.notNull().defaultTo(0))
    .addColumn('contact_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('pending_by_day')
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('due_date', t.date, (c) => c.notNull())
    .addColumn('due_count', 'integer', (c) => c.notNull())
    .addColumn('due_paise', t.money, (c) => c.notNull())
    .addPrimaryKeyConstraint('pending_by_day_pk', ['business_id', 'due_date'])
    .execute();
  // The sweeper looks for days that have passed, across businesses.
  await db.schema.createIndex('pending_by_day_due_date').on('pending_by_day').column('due_date').execute();

  await db.schema
    .createTable('paid_by_month')
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('due_count', 'integer', (c) => c.notNull())
    .addColumn('due_paise', t.money, (c) => c.notNull())
    .addPrimaryKeyConstraint('paid_by_month_pk', ['business_id', 'month'])
    .execute();

  await db.schema
    .createTable('contacts')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('phone_rev', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('contacts_business_name_key')
    .on('contacts')
    .columns(['business_id', 'name_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('contacts_business_phone_rev')
    .on('contacts')
    .columns(['business_id', 'phone_rev'])
    .execute();
  await db.schema
    .createIndex('contacts_business_created')
    .on('contacts')
    .columns(['business_id', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('open', 'integer', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('due_date', t.date, (c) => c.notNull())
    .addColumn('paid_at', t.timestamp)
    .addColumn('utr', 'text')
    .addColumn('payment_method', 'text')
    .addColumn('invoice_number', 'text')
    .addColumn('notes', 'text')
    .addColumn('reminder_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claim_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pay_token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('transactions_amount_positive', sql`amount_paise > 0`)
    .addCheckConstraint('transactions_status', sql`status in ('pending', 'overdue', 'paid')`)
    .execute();
  // Every list query is "one business, newest due date first"; these serve the unfiltered list,
  // the status filters (open + due-date range, or paid), the contact filter and incremental sync.
  await db.schema
    .createIndex('transactions_business_due')
    .on('transactions')
    .columns(['business_id', 'due_date desc', 'created_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('transactions_business_open_due')
    .on('transactions')
    .columns(['business_id', 'open', 'due_date desc', 'created_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('transactions_business_contact_due')
    .on('transactions')
    .columns(['business_id', 'contact_id', 'due_date desc', 'created_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('transactions_business_updated')
    .on('transactions')
    .columns(['business_id', 'updated_at'])
    .execute();
  await db.schema.createIndex('transactions_contact').on('transactions').column('contact_id').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['business_id', 'operation', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('events')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('dispatched_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('events_undispatched')
    .on('events')
    .column('created_at')
    .where(sql.ref('dispatched_at'), 'is', null)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('core schema cannot be rolled back');
}
