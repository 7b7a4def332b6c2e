import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Account claims: the buyer's account page takes "I have paid" for the whole account, with an
 * amount, besides the pay page's claims on one due. A claim is now of a due (`transaction_id`) or
 * of a contact's account (`contact_id`, with the `amount_paise` the buyer entered), never both.
 * SQLite cannot drop a NOT NULL, so there the table is rebuilt (nothing refers to it: no foreign
 * key, view or trigger), keeping every row and index.
 *
 * `receipts.claim_id`: the claim a receipt confirmed, unique, so one claim never pays twice,
 * whoever confirms it (the business, or a bank statement that names it).
 */
const COPIED = 'id, business_id, transaction_id, reference, created_at, status, decided_at';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  const oneOwner = sql`(transaction_id is null) <> (contact_id is null)`;
  if (t.isPostgres) {
    await sql`alter table payment_claims alter column transaction_id drop not null`.execute(db);
    await db.schema
      .alterTable('payment_claims')
      .addColumn('contact_id', t.uuid, (c) => c.references('contacts.id'))
      .execute();
    await db.schema.alterTable('payment_claims').addColumn('amount_paise', t.money).execute();
    await sql`alter table payment_claims add constraint payment_claims_one_owner check (${oneOwner})`.execute(db);
  } else {
    await db.schema
      .createTable('payment_claims_next')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
      .addColumn('transaction_id', t.uuid, (c) => c.references('transactions.id'))
      .addColumn('reference', 'text')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
      .addColumn('decided_at', t.timestamp)
      .addColumn('contact_id', t.uuid, (c) => c.references('contacts.id'))
      .addColumn('amount_paise', t.money)
      .addCheckConstraint('payment_claims_one_owner', oneOwner)
      .execute();
    await sql`insert into payment_claims_next (${sql.raw(COPIED)}) select ${sql.raw(COPIED)} from payment_claims`.execute(
      db,
    );
    await db.schema.dropTable('payment_claims').execute();
    await sql`alter table payment_claims_next rename to payment_claims`.execute(db);
    // The indexes of migrations 2026-11-21T06-00, 2026-11-24T05-00 and 2026-11-27T08-10, as they were.
    await db.schema
      .createIndex('payment_claims_transaction_created')
      .on('payment_claims')
      .columns(['transaction_id', 'created_at desc'])
      .execute();
    await db.schema
      .createIndex('payment_claims_business_status_created')
      .on('payment_claims')
      .columns(['business_id', 'status', 'created_at'])
      .execute();
    await db.schema
      .createIndex('payment_claims_pending_reference')
      .on('payment_claims')
      .columns(['business_id', 'reference'])
      .where(sql.ref('status'), '=', 'pending')
      .execute();
  }
  // A contact's account claims, oldest first (GET /v1/contacts/{id}/claims, the account page).
  await db.schema
    .createIndex('payment_claims_contact_created')
    .on('payment_claims')
    .columns(['contact_id', 'created_at'])
    .where(sql.ref('contact_id'), 'is not', null)
    .execute();

  await db.schema.alterTable('receipts').addColumn('claim_id', t.uuid).execute();
  await db.schema.createIndex('receipts_claim').unique().on('receipts').column('claim_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('receipts_claim').execute();
  await db.schema.alterTable('receipts').dropColumn('claim_id').execute();
  await db.schema.dropIndex('payment_claims_contact_created').execute();
  await sql`delete from payment_claims where transaction_id is null`.execute(db);
  if (columnTypes(db).isPostgres) {
    await sql`alter table payment_claims drop constraint payment_claims_one_owner`.execute(db);
    await db.schema.alterTable('payment_claims').dropColumn('amount_paise').execute();
    await db.schema.alterTable('payment_claims').dropColumn('contact_id').execute();
    await sql`alter table payment_claims alter column transaction_id set not null`.execute(db);
  }
  // SQLite keeps the wider table: a NULL-able column holding no NULL reads as before.
}
