import type { BusinessRow } from '../businesses/repository.js';
import type { Executor } from '../db/schema.js';
import { type RecordedReceipt, recordReceiptIn } from '../transactions/account.js';
import * as repo from './repository.js';

export interface ConfirmedAccountClaim extends RecordedReceipt {
  claim: repo.ClaimRow;
}

/**
 * Confirms a pending account claim in the caller's database transaction, with the contact locked
 * (the lock order of every receipt): the decision and its receipt (source claim, method upi, utr =
 * the claim's reference, allocated to the open dues oldest first, the rest as credit) commit
 * together. Undefined when the claim was decided already (perhaps a moment ago, concurrently):
 * then nothing is recorded. Shared by the business's confirmation and a bank credit that names
 * the claim.
 */
export async function confirmAccountClaimIn(
  trx: Executor,
  business: BusinessRow,
  claim: { id: string; contact_id: string; reference: string | null },
  input: { amountPaise: number; receivedOn?: string | undefined },
  now: Date,
): Promise<ConfirmedAccountClaim | undefined> {
  const decided = await repo.decideClaim(trx, claim.id, 'confirmed', now.toISOString());
  if (!decided) return undefined;
  const recorded = await recordReceiptIn(
    trx,
    business,
    claim.contact_id,
    {
      amountPaise: input.amountPaise,
      receivedOn: input.receivedOn,
      utr: claim.reference,
      paymentMethod: 'upi',
      source: 'claim',
      claimId: claim.id,
    },
    now,
  );
  return { claim: decided, ...recorded };
}
