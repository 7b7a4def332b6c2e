import { insertRows } from '../db/insert-rows.js';
import type { AdjustmentTable, Executor } from '../db/schema.js';

export function insertAdjustment(db: Executor, row: AdjustmentTable) {
  return insertRows(db, 'adjustments', [row]);
}

/** A due's adjustments, oldest first. */
export function listAdjustments(db: Executor, businessId: string, transactionId: string) {
  return db
    .selectFrom('adjustments')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
