import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * "Pay online" for a buyer's whole balance (the account page, PRODUCT part 18):
 *
 * - `account_payment_links`: the gateway's payment links of a contact's account. Each is given
 *   its own row id as the gateway's reference (Razorpay wants a reference unique per link), which
 *   the webhook hands back; the newest open one of the current balance is reused.
 * - `gateway_payments` (one row per payment the gateway reported, its primary key the
 *   de-duplication) also holds payments made on an account link: `contact_id` names the account
 *   and `transaction_id` is null for them. SQLite cannot drop a NOT NULL: the table is rebuilt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('account_payment_links')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('gateway_link_id', 'text', (c) => c.notNull().unique())
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('short_url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  // A contact's open links, newest first: few (older ones are cancelled when a new one is made).
  await db.schema
    .createIndex('account_payment_links_contact_open')
    .on('account_payment_links')
    .columns(['contact_id', 'created_at'])
    .where(sql.ref('status'), '=', 'created')
    .execute();

  if (t.isPostgres) {
    await sql`alter table gateway_payments alter column transaction_id drop not null`.execute(db);
    await sql`alter table gateway_payments add column contact_id uuid references contacts (id)`.execute(db);
    return;
  }
  await sql`create table gateway_payments_new (
    gateway_payment_id text primary key,
    business_id text not null references businesses (id),
    transaction_id text references transactions (id),
    contact_id text references contacts (id),
    gateway_link_id text,
    amount_paise integer not null,
    payment_method text not null,
    payment_id text references payments (id),
    unapplied_paise integer not null,
    unapplied_reason text,
    created_at text not null
  )`.execute(db);
  await sql`insert into gateway_payments_new (gateway_payment_id, business_id, transaction_id, gateway_link_id,
      amount_paise, payment_method, payment_id, unapplied_paise, unapplied_reason, created_at)
    select gateway_payment_id, business_id, transaction_id, gateway_link_id,
      amount_paise, payment_method, payment_id, unapplied_paise, unapplied_reason, created_at
    from gateway_payments`.execute(db);
  await sql`drop table gateway_payments`.execute(db);
  await sql`alter table gateway_payments_new rename to gateway_payments`.execute(db);
  await db.schema
    .createIndex('gateway_payments_business_created')
    .on('gateway_payments')
    .columns(['business_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_payment_links').execute();
}
