import type { ClaimRow } from './repository.js';
import type { ClaimResponse } from './schema.js';

export function presentClaim(row: ClaimRow): ClaimResponse {
  return {
    id: row.id,
    reference: row.reference,
    status: row.status as ClaimResponse['status'],
    created_at: row.created_at,
    decided_at: row.decided_at,
  };
}
