import { recordAudit } from '../audit/record.js';
import type { Executor } from '../db/schema.js';
import { claimEntry } from '../transactions/audit.js';
import * as repo from './repository.js';

/**
 * Decides a pending claim in the caller's database transaction, with its audit entry (status and
 * decided_at, before and after); undefined, and nothing written, when it was decided already.
 * Every decision goes through here: the business's confirm and reject, an account claim's
 * receipt, a bank credit naming the claim.
 */
export async function decideClaimIn(
  trx: Executor,
  businessId: string,
  claimId: string,
  status: 'confirmed' | 'rejected',
  now: Date,
): Promise<repo.ClaimRow | undefined> {
  const decided = await repo.decideClaim(trx, claimId, status, now.toISOString());
  if (decided) {
    await recordAudit(trx, businessId, now, [
      claimEntry(status, { id: claimId, status: 'pending', decided_at: null }, decided),
    ]);
  }
  return decided;
}
