import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Buyer accounts (the khata): one running account per contact.
 *
 * - `receipts`: money received from a buyer. Each `payments` row is now one allocation of a
 *   receipt (`receipt_id`); what a receipt did not apply is the contact's credit
 *   (`receipts.credit_paise`, used oldest receipt first). Existing payments become receipts of
 *   one allocation each (same id, so links to a payment still find its receipt).
 * - `payments.reversed_at`: set when the receipt is reversed; the allocation stays listed on the
 *   receipt, and stops counting on the due.
 * - `adjustments` (tds, discount, credit_note, write_off) lower a due's balance without money;
 *   `transactions.amount_adjusted_paise` is their sum.
 * - Kept on `contacts` (recomputable from the rows): `open_paise` (the open dues' balances, kept
 *   by triggers on transactions, so every way a due is written or changed moves it in the same
 *   transaction), `credit_paise` (the receipts' unused credit) and `balance_paise`
 *   (= open_paise - credit_paise, indexed for the sorted and filtered contacts list), and
 *   `oldest_open_due` is not kept: the partial index on open dues answers it per contact.
 * - `contacts.account_token` (the buyer's account page) and `contacts.language`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  await db.schema
    .createTable('receipts')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('applied_paise', t.money, (c) => c.notNull())
    .addColumn('credit_paise', t.money, (c) => c.notNull())
    .addColumn('utr', 'text')
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('received_on', t.date, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('reversed_at', t.timestamp)
    .addColumn('reversal_reason', 'text')
    .addCheckConstraint('receipts_amount_positive', sql`amount_paise > 0`)
    .addCheckConstraint('receipts_credit_range', sql`credit_paise >= 0 and applied_paise >= 0`)
    .execute();
  // The contact's receipts newest first (GET /v1/contacts/{id}/payments).
  await db.schema
    .createIndex('receipts_contact_created')
    .on('receipts')
    .columns(['business_id', 'contact_id', 'created_at', 'id'])
    .execute();
  // A statement's receipts of a period.
  await db.schema
    .createIndex('receipts_contact_received')
    .on('receipts')
    .columns(['contact_id', 'received_on'])
    .execute();
  // A statement's reversals of a period.
  await db.schema
    .createIndex('receipts_contact_reversed')
    .on('receipts')
    .columns(['contact_id', 'reversed_at'])
    .where(sql.ref('reversed_at'), 'is not', null)
    .execute();
  // The receipts still holding credit, oldest first: where a new due takes its credit from.
  await db.schema
    .createIndex('receipts_contact_credit')
    .on('receipts')
    .columns(['contact_id', 'created_at', 'id'])
    .where(sql.ref('credit_paise'), '>', 0)
    .execute();

  await db.schema
    .alterTable('payments')
    .addColumn('receipt_id', t.uuid, (c) => c.references('receipts.id'))
    .execute();
  await db.schema.alterTable('payments').addColumn('reversed_at', t.timestamp).execute();
  await db.schema.createIndex('payments_receipt').on('payments').columns(['receipt_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('adjustments')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('transaction_id', t.uuid, (c) => c.notNull().references('transactions.id'))
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('reference', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('adjustments_amount_positive', sql`amount_paise > 0`)
    .addCheckConstraint('adjustments_kind', sql`kind in ('tds', 'discount', 'credit_note', 'write_off')`)
    .execute();
  await db.schema
    .createIndex('adjustments_transaction_created')
    .on('adjustments')
    .columns(['transaction_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('adjustments_contact_created')
    .on('adjustments')
    .columns(['contact_id', 'created_at'])
    .execute();

  await db.schema
    .alterTable('transactions')
    .addColumn('amount_adjusted_paise', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  // A contact's open dues oldest first (receipts allocate in this order; the oldest_due sort).
  await db.schema
    .createIndex('transactions_contact_open_due')
    .on('transactions')
    .columns(['contact_id', 'due_date', 'created_at', 'id'])
    .where(sql.ref('open'), '=', 1)
    .execute();
  // A statement's dues of a period (entered on the date they were created).
  await db.schema
    .createIndex('transactions_contact_created')
    .on('transactions')
    .columns(['contact_id', 'created_at'])
    .execute();

  const contacts = () => db.schema.alterTable('contacts');
  await contacts()
    .addColumn('open_paise', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await contacts()
    .addColumn('credit_paise', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await contacts()
    .addColumn('balance_paise', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await contacts().addColumn('account_token', 'text').execute();
  await contacts().addColumn('language', 'text').execute();

  await db.schema.createIndex('contacts_account_token').on('contacts').column('account_token').unique().execute();
  await db.schema
    .createIndex('contacts_business_balance')
    .on('contacts')
    .columns(['business_id', 'balance_paise', 'id'])
    .execute();
  // The contacts holding credit: the summary's credit_paise sums them (few: credit is used at once).
  await db.schema
    .createIndex('contacts_business_credit')
    .on('contacts')
    .columns(['business_id', 'credit_paise'])
    .where(sql.ref('credit_paise'), '>', 0)
    .execute();
  await db.schema
    .createIndex('contacts_business_name_id')
    .on('contacts')
    .columns(['business_id', 'name_key', 'id'])
    .execute();

  await backfillReceipts(db);
  await sql`update payments set receipt_id = id`.execute(db);
  // Last (PostgreSQL): updating contacts queues their data-version triggers, after which the
  // table's indexes could not be created in this transaction.
  await sql`update contacts set open_paise = o.paise, balance_paise = o.paise from (
      select contact_id, sum(amount_paise - amount_paid_paise - amount_adjusted_paise) as paise from transactions
      where open = 1 group by contact_id) o
    where o.contact_id = contacts.id and o.paise <> 0`.execute(db);
  await backfillAccountTokens(db);
  await createBalanceTriggers(db, t.isPostgres);
}

/** A due's open balance in a trigger (`row` is NEW or OLD). */
const openBalance = (row: string) =>
  `(case when ${row}.open = 1 then ${row}.amount_paise - ${row}.amount_paid_paise - ${row}.amount_adjusted_paise else 0 end)`;

async function createBalanceTriggers(db: Kysely<unknown>, postgres: boolean) {
  if (postgres) {
    await sql
      .raw(`create function contact_open_balance() returns trigger language plpgsql as $$
      declare d bigint;
      begin
        if tg_op = 'INSERT' then d := ${openBalance('new')};
        else d := ${openBalance('new')} - ${openBalance('old')};
        end if;
        if d <> 0 then
          update contacts set open_paise = open_paise + d, balance_paise = balance_paise + d where id = new.contact_id;
        end if;
        return null;
      end $$`)
      .execute(db);
    await sql
      .raw(`create trigger transactions_contact_balance
        after insert or update of amount_paise, amount_paid_paise, amount_adjusted_paise, open on transactions
        for each row execute function contact_open_balance()`)
      .execute(db);
    return;
  }
  await sql
    .raw(`create trigger transactions_contact_balance_insert after insert on transactions
      when new.open = 1
      begin
        update contacts set open_paise = open_paise + ${openBalance('new')},
          balance_paise = balance_paise + ${openBalance('new')} where id = new.contact_id;
      end`)
    .execute(db);
  const d = `(${openBalance('new')} - ${openBalance('old')})`;
  await sql
    .raw(`create trigger transactions_contact_balance_update
      after update of amount_paise, amount_paid_paise, amount_adjusted_paise, open on transactions
      when ${d} <> 0
      begin
        update contacts set open_paise = open_paise + ${d}, balance_paise = balance_paise + ${d} where id = new.contact_id;
      end`)
    .execute(db);
}

/** Rows read or written per statement by the backfills. */
const PAGE = 500;

function localDate(timeZone: string, at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** Every existing payment becomes a receipt of one allocation, with the payment's id. */
async function backfillReceipts(db: Kysely<unknown>) {
  let after: string | null = null;
  for (;;) {
    const page = await sql<{
      id: string;
      business_id: string;
      contact_id: string;
      amount_paise: number | string;
      utr: string | null;
      payment_method: string;
      source: string;
      created_at: string | Date;
      timezone: string;
    }>`select p.id, p.business_id, t.contact_id, p.amount_paise, p.utr, p.payment_method, p.source, p.created_at, b.timezone
      from payments p join transactions t on t.id = p.transaction_id join businesses b on b.id = p.business_id
      ${after === null ? sql`` : sql`where p.id > ${after}`} order by p.id limit ${PAGE}`.execute(db);
    if (page.rows.length === 0) return;
    const rows = page.rows.map((p) => {
      const created = typeof p.created_at === 'string' ? p.created_at : p.created_at.toISOString();
      return {
        id: p.id,
        business_id: p.business_id,
        contact_id: p.contact_id,
        amount_paise: Number(p.amount_paise),
        applied_paise: Number(p.amount_paise),
        credit_paise: 0,
        utr: p.utr,
        payment_method: p.payment_method,
        source: p.source,
        received_on: localDate(p.timezone, new Date(created)),
        created_at: created,
      };
    });
    await (db as Kysely<{ receipts: (typeof rows)[number] }>).insertInto('receipts').values(rows).execute();
    after = String(page.rows[page.rows.length - 1]?.id);
  }
}

async function backfillAccountTokens(db: Kysely<unknown>) {
  for (;;) {
    const page = await sql<{ id: string }>`select id from contacts where account_token is null limit ${PAGE}`.execute(
      db,
    );
    if (page.rows.length === 0) return;
    // One statement per page (a statement per contact was slow on PostgreSQL, whose row triggers
    // on contacts each queue a deferred event).
    const values = sql.join(page.rows.map((row) => sql`(${String(row.id)}, ${randomBytes(18).toString('base64url')})`));
    await sql`with v(id, token) as (values ${values})
      update contacts set account_token = (select v.token from v where v.id = cast(contacts.id as text))
      where cast(id as text) in (select v.id from v)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  if (t.isPostgres) {
    await sql`drop trigger transactions_contact_balance on transactions`.execute(db);
    await sql`drop function contact_open_balance()`.execute(db);
  } else {
    await sql`drop trigger transactions_contact_balance_insert`.execute(db);
    await sql`drop trigger transactions_contact_balance_update`.execute(db);
  }
  await db.schema.dropIndex('contacts_business_name_id').execute();
  await db.schema.dropIndex('contacts_business_credit').execute();
  await db.schema.dropIndex('contacts_business_balance').execute();
  await db.schema.dropIndex('contacts_account_token').execute();
  for (const column of ['language', 'account_token', 'balance_paise', 'credit_paise', 'open_paise']) {
    await db.schema.alterTable('contacts').dropColumn(column).execute();
  }
  await db.schema.dropIndex('transactions_contact_created').execute();
  await db.schema.dropIndex('transactions_contact_open_due').execute();
  await db.schema.alterTable('transactions').dropColumn('amount_adjusted_paise').execute();
  await db.schema.dropTable('adjustments').execute();
  await db.schema.dropIndex('payments_receipt').execute();
  await db.schema.alterTable('payments').dropColumn('reversed_at').execute();
  await db.schema.alterTable('payments').dropColumn('receipt_id').execute();
  await db.schema.dropTable('receipts').execute();
}
