import type { AdjustmentTable } from '../db/schema.js';
import type { AdjustmentResponse } from './schema.js';

export function presentAdjustment(row: AdjustmentTable): AdjustmentResponse {
  return {
    id: row.id,
    transaction_id: row.transaction_id,
    kind: row.kind,
    amount_paise: Number(row.amount_paise),
    reason: row.reason,
    reference: row.reference,
    created_at: row.created_at,
  };
}
