import type { Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import * as deliveriesRepo from './delivery-repository.js';
import * as endpointsRepo from './endpoint-repository.js';
import type { Leased } from './leases.js';
import * as queueRepo from './queue-repository.js';
import type { WebhookResult } from './sender.js';

/** Waits before the 2nd..6th attempt (SPEC part 6): 1 min, 5 min, 30 min, 2 h, 6 h. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An endpoint that has failed every attempt for this long is disabled (PRODUCT part 5). */
export const DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;

/** The disabled reasons an endpoint can carry (the dashboard says them in the business's language). */
export const TURNED_OFF_BY_BUSINESS = 'turned off by the business';
export const FAILING_SINCE = 'disabled after failing every attempt since ';

export type AttemptOutcome = 'delivered' | 'failed' | 'lease_lost';

/** An attempt that has ended, waiting to be recorded. */
export interface Finished {
  delivery: Leased;
  result: WebhookResult;
}

/**
 * Records finished attempts, each only if its lease is still ours, in the caller's transaction.
 * The ids of endpoints this disabled are added to `disabled` (their business is told once this commits).
 */
export async function recordOutcomes(
  trx: Executor,
  clock: Clock,
  batch: Finished[],
  disabled: string[] = [],
): Promise<AttemptOutcome[]> {
  const now = clock.now();
  const at = now.toISOString();
  // Endpoints first, in one order, then deliveries: the lock order of delete and disable too.
  const endpointIds = [...new Set(batch.map((b) => b.delivery.endpoint_id))].sort();
  for (const id of endpointIds) await endpointsRepo.lockEndpoint(trx, id);
  const held = new Map(
    (
      await queueRepo.findLeasedMany(
        trx,
        batch.map((b) => b.delivery.id),
      )
    ).map((row) => [row.id, row]),
  );
  const valid = batch.filter((b) => held.get(b.delivery.id)?.lease_id === b.delivery.lease_id);

  // Each endpoint's counters move once for the whole batch, in the order the attempts ended.
  const live = new Map<string, boolean>();
  for (const endpointId of endpointIds) {
    const results = valid.filter((b) => b.delivery.endpoint_id === endpointId).map((b) => b.result.ok);
    if (results.length === 0) continue;
    const lastOk = results.lastIndexOf(true);
    const endpoint = await endpointsRepo.recordEndpointOutcomes(trx, endpointId, {
      reset: lastOk >= 0,
      failuresAfter: results.length - 1 - lastOk,
      at,
    });
    let isLive = endpoint !== undefined && endpoint.active === 1 && endpoint.deleted_at === null;
    if (
      isLive &&
      results[results.length - 1] === false &&
      endpoint?.failing_since &&
      now.getTime() - new Date(endpoint.failing_since).getTime() >= DISABLE_AFTER_MS
    ) {
      const reason = `${FAILING_SINCE}${endpoint.failing_since}`;
      await endpointsRepo.disableEndpoint(trx, endpointId, reason, at);
      disabled.push(endpointId);
      await deliveriesRepo.cancelQueued(trx, endpointId, 'endpoint disabled after 3 days of failures', at);
      isLive = false;
    }
    live.set(endpointId, isLive);
  }

  const attempts: deliveriesRepo.AttemptRow[] = [];
  // The usual outcome, delivered, is written for many deliveries at once (one statement per
  // response status); failures and requeued deliveries each get their own update.
  const delivered = new Map<number, string[]>();
  for (const { delivery, result } of valid) {
    const current = held.get(delivery.id) as NonNullable<ReturnType<typeof held.get>>;
    const attempt = current.attempts + 1;
    const isLive = live.get(delivery.endpoint_id) === true;
    const retryAt =
      !result.ok && isLive && attempt < MAX_ATTEMPTS
        ? new Date(now.getTime() + (RETRY_DELAYS_MS[attempt - 1] ?? 0)).toISOString()
        : null;
    const requeued = isLive && current.requeue === 1;
    attempts.push(deliveriesRepo.attemptRow(delivery.id, attempt, result, retryAt, at));
    if (result.ok && !requeued && result.status !== null) {
      const ids = delivered.get(result.status);
      if (ids) ids.push(delivery.id);
      else delivered.set(result.status, [delivery.id]);
      continue;
    }
    await queueRepo.updateDelivery(trx, delivery.id, {
      status: requeued ? 'pending' : result.ok ? 'delivered' : 'failed',
      attempts: attempt,
      response_status: result.status,
      error: result.ok ? null : result.error,
      ...(result.ok && { delivered_at: at }),
      next_attempt_at: requeued ? at : retryAt,
      requeue: 0,
      lease_id: null,
      locked_until: null,
      updated_at: at,
    });
  }
  for (const [responseStatus, ids] of delivered) await queueRepo.markDelivered(trx, ids, responseStatus, at);
  await deliveriesRepo.insertAttempts(trx, attempts);
  return batch.map((b) =>
    held.get(b.delivery.id)?.lease_id !== b.delivery.lease_id ? 'lease_lost' : b.result.ok ? 'delivered' : 'failed',
  );
}
