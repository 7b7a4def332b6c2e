import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * A payment link still open at the gateway keeps taking money after its due was settled by other
 * means (cash recorded, mark-paid, a claim confirmed) or deleted; the buyer who pays it anyway
 * has their money kept as unapplied. So the moment a due becomes paid or is deleted, its open
 * links are marked `stale` in the same transaction, by a trigger (every code path and every
 * process, as the data version does), and the `payment-link-cancel` job (workers/) cancels them at
 * the gateway. The partial index lets the job find them without walking every link.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const settled = sql`(new.status = 'paid' and old.status <> 'paid')
    or (new.deleted_at is not null and old.deleted_at is null)`;
  if (columnTypes(db).isPostgres) {
    await sql`
      create function stale_payment_links() returns trigger language plpgsql as $$
      begin
        update payment_links set status = 'stale' where transaction_id = new.id and status = 'created';
        return null;
      end $$`.execute(db);
    await sql`
      create trigger transactions_stale_payment_links after update of status, deleted_at on transactions
      for each row when (${settled}) execute function stale_payment_links()`.execute(db);
  } else {
    await sql`
      create trigger transactions_stale_payment_links after update of status, deleted_at on transactions
      for each row when ${settled}
      begin
        update payment_links set status = 'stale' where transaction_id = new.id and status = 'created';
      end`.execute(db);
  }
  await db.schema
    .createIndex('payment_links_stale')
    .on('payment_links')
    .column('created_at')
    .where(sql.ref('status'), '=', 'stale')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payment_links_stale').execute();
  if (columnTypes(db).isPostgres) {
    await sql`drop trigger transactions_stale_payment_links on transactions`.execute(db);
    await sql`drop function stale_payment_links()`.execute(db);
  } else {
    await sql`drop trigger transactions_stale_payment_links`.execute(db);
  }
}
