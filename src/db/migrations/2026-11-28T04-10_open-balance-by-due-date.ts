import { type Kysely, sql } from 'kysely';

/**
 * Open dues by balance, in due-date order: a bank credit's suggestions (the open dues whose
 * balance is the amount, oldest due first) read a few index entries. The index it replaces had no
 * due date, so the order made SQLite walk the business's open dues by date instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('transactions_open_balance_due')
    .on('transactions')
    .expression(sql`business_id, (amount_paise - amount_paid_paise - amount_adjusted_paise), due_date`)
    .where(sql.ref('open'), '=', 1)
    .execute();
  await db.schema.dropIndex('transactions_open_balance').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('transactions_open_balance')
    .on('transactions')
    .expression(sql`business_id, (amount_paise - amount_paid_paise - amount_adjusted_paise)`)
    .where(sql.ref('open'), '=', 1)
    .execute();
  await db.schema.dropIndex('transactions_open_balance_due').execute();
}
