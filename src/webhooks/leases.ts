import type { Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import * as queueRepo from './queue-repository.js';

/**
 * Leases on deliveries: a delivery is sent under a lease (lease_id + locked_until) and its
 * outcome is recorded only while the lease is still ours (outcomes.ts); a process killed
 * mid-attempt leaves a lease that expires, and the delivery is claimed again.
 */
export type Leased = queueRepo.LeasedDelivery & { lease_id: string };

/** What a lease is made with: the clock and how long it lasts (WebhookDispatcher.leaseMs). */
export interface LeaseTerms {
  clock: Clock;
  leaseMs: number;
}

/** Claims up to `limit` due deliveries under one new lease, in the caller's transaction. */
export async function claimIn(trx: Executor, terms: LeaseTerms, limit: number): Promise<Leased[]> {
  const now = terms.clock.now();
  const leaseId = uuidv7();
  const ids = await queueRepo.claimDeliveries(trx, {
    now: now.toISOString(),
    leaseId,
    lockedUntil: new Date(now.getTime() + terms.leaseMs).toISOString(),
    limit,
  });
  if (ids.length === 0) return [];
  const rows = await queueRepo.leasedDeliveries(trx, ids, leaseId);
  return rows.map((r) => ({ ...r, lease_id: leaseId }));
}
