import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * WhatsApp in production: every message the service sends is a row of `chat_messages` (whose
 * business and contact it concerns, which reminder, its template, its delivery status, its pricing
 * category and cost), so that a buyer's reply goes to the business whose message it answers, a
 * delivery status reaches the right reminder, and a month's cost can be summed. `chat_phones` keeps
 * what WhatsApp told us about a phone (it cannot receive; when it last wrote to us, which opens the
 * 24-hour window). `chat_send_pace` is the token bucket every process sending through the number
 * shares. Messages sent before this migration are copied from the reminders that recorded them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  const double = t.isPostgres ? 'double precision' : 'real';
  await db.schema
    .createTable('chat_messages')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('provider_message_id', 'text', (c) => c.notNull())
    .addColumn('business_id', t.uuid, (c) => c.references('businesses.id'))
    .addColumn('contact_id', t.uuid)
    .addColumn('reminder_id', t.uuid)
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('template', 'text')
    .addColumn('category', 'text')
    .addColumn('cost_millipaise', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivery', 'text')
    .addColumn('error_code', 'integer')
    .addColumn('sent_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chat_messages_provider_id')
    .unique()
    .on('chat_messages')
    .column('provider_message_id')
    .execute();
  // Reply routing: the business that last wrote to a phone.
  await db.schema.createIndex('chat_messages_phone_sent').on('chat_messages').columns(['phone', 'sent_at']).execute();
  // A business's usage of one month.
  await db.schema
    .createIndex('chat_messages_business_sent')
    .on('chat_messages')
    .columns(['business_id', 'sent_at'])
    .execute();

  await db.schema
    .createTable('chat_phones')
    .addColumn('phone', 'text', (c) => c.primaryKey())
    .addColumn('last_inbound_at', t.timestamp)
    .addColumn('unreachable_at', t.timestamp)
    .execute();

  await db.schema
    .createTable('chat_send_pace')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('tokens', double, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await sql`
    insert into chat_messages (id, provider_message_id, business_id, contact_id, reminder_id, phone, purpose,
      kind, template, category, cost_millipaise, delivery, error_code, sent_at, updated_at)
    select r.id, r.provider_message_id, r.business_id, r.contact_id, r.id, coalesce(c.phone, ''), 'reminder',
      'template', r.template, null, 0, r.delivery_status, null, r.sent_at, r.updated_at
    from reminders r join contacts c on c.id = r.contact_id
    where r.provider_message_id is not null and r.sent_at is not null and r.status = 'sent'
    on conflict do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chat_send_pace').execute();
  await db.schema.dropTable('chat_phones').execute();
  await db.schema.dropTable('chat_messages').execute();
}
