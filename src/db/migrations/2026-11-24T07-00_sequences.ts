import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * PRODUCT part 13: reminder sequences, pauses, promises to pay and aging.
 *
 * - `businesses.reminder_steps`: the sequence's day offsets from the due date, comma-separated.
 * - `contacts.reminders_paused`: the contact's own pause of reminders.
 * - `reminders.step_until`: for a step of a sequence, the moment the next step is due; a step held
 *   back past it is skipped instead of going out together with the next one.
 * - `transactions.promise_date`, `promise_made_at`: the buyer's latest promise to pay.
 * - `buyer_replies`: a buyer's chat replies, kept for the business to read, with the promise
 *   read from each (null when unclear).
 * - `open_by_day`: open balances per due date (every open due, whatever its stored status), so
 *   aging is a few range sums over at most 90 days of rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('businesses')
    .addColumn('reminder_steps', 'text', (c) => c.notNull().defaultTo('-3,0,7,30'))
    .execute();
  await db.schema
    .alterTable('contacts')
    .addColumn('reminders_paused', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('reminders').addColumn('step_until', t.timestamp).execute();
  await db.schema.alterTable('transactions').addColumn('promise_date', t.date).execute();
  await db.schema.alterTable('transactions').addColumn('promise_made_at', t.timestamp).execute();

  await db.schema
    .createTable('open_by_day')
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('due_date', t.date, (c) => c.notNull())
    .addColumn('due_count', 'integer', (c) => c.notNull())
    .addColumn('due_paise', t.money, (c) => c.notNull())
    .addPrimaryKeyConstraint('open_by_day_pk', ['business_id', 'due_date'])
    .execute();
  await sql`
    insert into open_by_day (business_id, due_date, due_count, due_paise)
    select business_id, due_date, count(*), sum(amount_paise - amount_paid_paise)
    from transactions where open = 1
    group by business_id, due_date`.execute(db);

  await db.schema
    .createTable('buyer_replies')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('transaction_id', t.uuid)
    .addColumn('promise_date', t.date)
    .addColumn('received_at', t.timestamp, (c) => c.notNull())
    .execute();
  // A buyer's reply comes from a phone: the contacts (of any business) with that phone.
  await db.schema
    .createIndex('contacts_phone')
    .on('contacts')
    .column('phone')
    .where(sql.ref('phone'), 'is not', null)
    .execute();
  // A contact's replies, newest first.
  await db.schema
    .createIndex('buyer_replies_contact')
    .on('buyer_replies')
    .columns(['contact_id', 'received_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('contacts_phone').execute();
  await db.schema.dropTable('buyer_replies').execute();
  await db.schema.dropTable('open_by_day').execute();
  await db.schema.alterTable('transactions').dropColumn('promise_made_at').execute();
  await db.schema.alterTable('transactions').dropColumn('promise_date').execute();
  await db.schema.alterTable('reminders').dropColumn('step_until').execute();
  await db.schema.alterTable('contacts').dropColumn('reminders_paused').execute();
  await db.schema.alterTable('businesses').dropColumn('reminder_steps').execute();
}
