import type { ClaimRow } from './repository.js';
import type { AccountClaimResponse, ClaimResponse } from './schema.js';

export function presentClaim(row: ClaimRow): ClaimResponse {
  return {
    id: row.id,
    reference: row.reference,
    status: row.status as ClaimResponse['status'],
    created_at: row.created_at,
    decided_at: row.decided_at,
  };
}

export function presentAccountClaim(row: ClaimRow): AccountClaimResponse {
  const { id, reference, status, created_at, decided_at } = presentClaim(row);
  return {
    id,
    contact_id: row.contact_id as string,
    amount_paise: Number(row.amount_paise),
    reference,
    status,
    created_at,
    decided_at,
  };
}
