import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * PRODUCT part 10: dues change, are paid in parts, are removed (soft) and repeat.
 *
 * - `payments`: one row per payment of a due; `transactions.amount_paid_paise` is their sum, kept
 *   in the same database transaction. Dues already paid count as fully paid (no payment row is
 *   invented for them: their utr and method stay on the due).
 * - `deleted_at`: a removed due keeps its row (for incremental sync); its `open` becomes -1, so it
 *   falls out of every status range of the list indexes (1 open, 0 paid).
 * - `series_id`, `recurrence` (JSON `{interval, until}`), `recurs_next` (1 while the next due of
 *   the series is still to be created from this one). One due per series and date: the unique
 *   index makes two workers that race on a series create it once.
 * - `reminders_paused`: the due's own pause of automatic reminders.
 *
 * The running totals (business_totals, pending_by_day) now hold balances instead of amounts, and
 * paid_by_month holds the payments received per month: equal for existing data, where a due is
 * either unpaid or paid whole.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('payments')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('transaction_id', t.uuid, (c) => c.notNull().references('transactions.id'))
    .addColumn('amount_paise', t.money, (c) => c.notNull())
    .addColumn('utr', 'text')
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('payments_amount_positive', sql`amount_paise > 0`)
    .execute();
  await db.schema
    .createIndex('payments_transaction_created')
    .on('payments')
    .columns(['transaction_id', 'created_at', 'id'])
    .execute();

  const add = () => db.schema.alterTable('transactions');
  await add()
    .addColumn('amount_paid_paise', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await add().addColumn('deleted_at', t.timestamp).execute();
  await add().addColumn('series_id', t.uuid).execute();
  await add().addColumn('recurrence', 'text').execute();
  await add()
    .addColumn('recurs_next', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await add()
    .addColumn('reminders_paused', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update transactions set amount_paid_paise = amount_paise where status = 'paid'`.execute(db);

  await db.schema
    .createIndex('transactions_series_due')
    .on('transactions')
    .columns(['series_id', 'due_date'])
    .unique()
    .where(sql.ref('series_id'), 'is not', null)
    .execute();
  // The recurrence worker's queue: dues whose next is still to be created, by date.
  await db.schema
    .createIndex('transactions_recurs_next_due')
    .on('transactions')
    .columns(['due_date'])
    .where(sql.ref('recurs_next'), '=', 1)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_recurs_next_due').execute();
  await db.schema.dropIndex('transactions_series_due').execute();
  for (const column of [
    'reminders_paused',
    'recurs_next',
    'recurrence',
    'series_id',
    'deleted_at',
    'amount_paid_paise',
  ]) {
    await db.schema.alterTable('transactions').dropColumn(column).execute();
  }
  await db.schema.dropTable('payments').execute();
}
