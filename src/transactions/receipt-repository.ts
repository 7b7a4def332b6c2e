import { sql } from 'kysely';
import { insertRows } from '../db/insert-rows.js';
import { exactTime, lockedRows, offIndex } from '../db/port.js';
import type { Executor, PaymentTable, ReceiptTable } from '../db/schema.js';
import { updatedAtAfter } from '../db/updated-at.js';

export function insertReceipt(db: Executor, row: ReceiptTable) {
  return insertRows(db, 'receipts', [row]);
}

export function updateReceipt(
  db: Executor,
  id: string,
  patch: Partial<Pick<ReceiptTable, 'applied_paise' | 'credit_paise' | 'reversed_at' | 'reversal_reason'>>,
) {
  return db.updateTable('receipts').set(patch).where('id', '=', id).execute();
}

/** One receipt of the business, locked on PostgreSQL when `lock`. */
export function findReceipt(db: Executor, businessId: string, id: string, lock = false) {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .$if(lock, (q) => q.$call(lockedRows(db)))
    .executeTakeFirst();
}

/** Where a page of a contact's receipts starts (the receipt given as starting_after). */
export function findReceiptPosition(db: Executor, businessId: string, contactId: string, id: string) {
  return db
    .selectFrom('receipts')
    .select([exactTime(db, 'created_at').as('created_at'), 'id'])
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A page of a contact's receipts, newest first. */
export function listReceipts(
  db: Executor,
  businessId: string,
  contactId: string,
  limit: number,
  offset: number,
  after?: { created_at: string; id: string },
) {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb(
          eb.refTuple('created_at', 'id'),
          '<',
          eb.tuple((after as { created_at: string }).created_at, (after as { id: string }).id),
        ),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countReceipts(db: Executor, businessId: string, contactId: string): Promise<number> {
  const row = await db
    .selectFrom('receipts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The allocations (payments) of some receipts, oldest first. */
export function allocationsOf(db: Executor, receiptIds: readonly string[]): Promise<PaymentTable[]> {
  if (receiptIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('payments')
    .selectAll()
    .where('receipt_id', 'in', receiptIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute() as Promise<PaymentTable[]>;
}

/** The receipts of a contact still holding credit, oldest first, locked on PostgreSQL. */
export function lockCreditReceipts(db: Executor, contactId: string) {
  return db
    .selectFrom('receipts')
    .select(['id', 'applied_paise', 'credit_paise', 'utr', 'payment_method'])
    .where('contact_id', '=', contactId)
    .where('credit_paise', '>', 0)
    .orderBy('created_at')
    .orderBy('id')
    .$call(lockedRows(db))
    .execute();
}

/** A contact of the business with its kept balances, locked on PostgreSQL: one receipt at a time per contact. */
export function lockContact(db: Executor, businessId: string, contactId: string) {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', contactId)
    .$call(lockedRows(db))
    .executeTakeFirst();
}

/**
 * These contacts of the business, locked on PostgreSQL in id order (one lock order), with their
 * kept credit. Every one is locked, whatever its credit: a filter on credit would be checked on
 * the row as this statement's snapshot sees it, and would skip a contact whose receipt (holding
 * its lock) is about to leave it credit. Read under the lock, the credit is the committed one.
 */
export function lockContacts(db: Executor, businessId: string, contactIds: readonly string[]) {
  if (contactIds.length === 0) return Promise.resolve([]);
  return (
    db
      .selectFrom('contacts')
      .select(['id', 'credit_paise'])
      // By id: offered business_id, SQLite walked the business's contacts (an index on it) to sort by id.
      .where(offIndex(db, 'business_id'), '=', businessId)
      .where('id', 'in', contactIds)
      .orderBy('id')
      .$call(lockedRows(db))
      .execute()
  );
}

/**
 * Moves a contact's kept credit (and so its balance, the other way), and its updated_at (as every
 * change of its balance: a client syncing contacts by `since` sees it).
 */
export function addContactCredit(db: Executor, contactId: string, paise: number, at: string) {
  return db
    .updateTable('contacts')
    .set({
      credit_paise: sql`credit_paise + ${paise}`,
      balance_paise: sql`balance_paise - ${paise}`,
      updated_at: updatedAtAfter(db, at),
    })
    .where('id', '=', contactId)
    .execute();
}
