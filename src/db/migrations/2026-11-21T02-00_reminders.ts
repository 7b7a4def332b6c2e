import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/** Reminders (PRODUCT part 6): the reminder log and queue, chat opt-outs, and inbound message ids. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  await db.schema
    .createTable('reminders')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('transaction_id', t.uuid, (c) => c.notNull().references('transactions.id'))
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('template', 'text')
    .addColumn('reason', 'text')
    .addColumn('scheduled_for', t.timestamp, (c) => c.notNull())
    .addColumn('sent_at', t.timestamp)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_id', 'text')
    .addColumn('locked_until', t.timestamp)
    .addColumn('provider_message_id', 'text')
    .addColumn('delivery_status', 'text')
    .addColumn('delivery_updated_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('reminders_kind', sql`kind in ('manual', 'automatic')`)
    .addCheckConstraint('reminders_status', sql`status in ('scheduled', 'sending', 'sent', 'cancelled', 'failed')`)
    .execute();
  // The scheduler's claim: scheduled reminders that have come due, and sends whose lease ran out.
  await db.schema
    .createIndex('reminders_scheduled')
    .on('reminders')
    .column('scheduled_for')
    .where(sql.ref('status'), '=', 'scheduled')
    .execute();
  await db.schema
    .createIndex('reminders_sending')
    .on('reminders')
    .column('locked_until')
    .where(sql.ref('status'), '=', 'sending')
    .execute();
  // The 24-hour cooldown and the weekly cap look at one contact's recent sends.
  await db.schema.createIndex('reminders_contact_sent').on('reminders').columns(['contact_id', 'sent_at']).execute();
  await db.schema.createIndex('reminders_transaction').on('reminders').column('transaction_id').execute();
  await db.schema.createIndex('reminders_provider_message').on('reminders').column('provider_message_id').execute();

  // STOP comes from a phone, not from one business's contact: it holds for every contact with that
  // phone, including contacts added later, until START.
  await db.schema
    .createTable('chat_opt_outs')
    .addColumn('phone', 'text', (c) => c.primaryKey())
    .addColumn('opted_out_at', t.timestamp, (c) => c.notNull())
    .execute();

  // Meta retries webhook calls: an inbound message is acted on once (an "API KEY" issues one key).
  await db.schema
    .createTable('chat_inbound_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('received_at', t.timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chat_inbound_messages').execute();
  await db.schema.dropTable('chat_opt_outs').execute();
  await db.schema.dropTable('reminders').execute();
}
