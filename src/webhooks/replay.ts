import type { Db } from '../db/schema.js';
import * as eventsRepo from '../events/repository.js';
import { uuidv7 } from '../lib/ids.js';
import { signalOutbox } from '../outbox/signal.js';
import type { DeliveryRow } from './delivery-repository.js';
import * as endpointsRepo from './endpoint-repository.js';
import { deliveryBody } from './payload.js';
import * as queueRepo from './queue-repository.js';

/** At most this many events are queued again by one replay. */
export const MAX_REPLAY = 10_000;
/** Existing deliveries are requeued this many at a time (bound parameters per statement). */
const CHUNK = 500;

/**
 * Queues the endpoint's events of a window again, oldest first, up to MAX_REPLAY: an event the
 * endpoint already has a delivery for gets that delivery queued again (as redeliver does: one
 * more attempt, even if one is in flight now); any other gets a new delivery. Durable like any
 * delivery: the dispatcher sends them at least once.
 *
 * Several short transactions, not one, each starting with the endpoint's row (before the
 * dispatcher can hold it and wait for this replay): the new deliveries are committed first, then
 * the existing ones are requeued a chunk at a time. A replay holding its new rows while waiting
 * for rows the dispatcher holds (and the dispatcher's fan-out waiting for those new rows) would
 * deadlock on PostgreSQL. A replay cut short has queued part of the window, nothing worse, and
 * its caller, answered an error, asks again.
 */
export async function replay(
  db: Db,
  endpoint: { id: string; business_id: string },
  window: { since: string; until?: string | undefined; types: readonly string[] },
  at: string,
): Promise<{ queued: number; truncated: boolean }> {
  if (window.types.length === 0) return { queued: 0, truncated: false };
  const events = await eventsRepo.listEvents(
    db,
    endpoint.business_id,
    { types: window.types, since: window.since, until: window.until },
    MAX_REPLAY + 1,
  );
  const truncated = events.length > MAX_REPLAY;
  const chosen = truncated ? events.slice(0, MAX_REPLAY) : events;
  if (chosen.length === 0) return { queued: 0, truncated };
  const rows: DeliveryRow[] = chosen.map((event) => ({
    id: uuidv7(),
    business_id: endpoint.business_id,
    endpoint_id: endpoint.id,
    event_id: event.id,
    event: event.type,
    body: deliveryBody(event.type, event.created_at, event.payload),
    status: 'pending',
    attempts: 0,
    response_status: null,
    error: null,
    next_attempt_at: at,
    delivered_at: null,
    requeue: 0,
    lease_id: null,
    locked_until: null,
    created_at: at,
    updated_at: at,
  }));
  await db.transaction().execute(async (trx) => {
    await endpointsRepo.lockEndpointForQueueing(trx, endpoint.id);
    await queueRepo.insertDeliveries(trx, rows);
    await signalOutbox(trx);
  });
  // Then every delivery of these events is queued again, those that existed already included: a
  // delivery a concurrent fan-out was creating is committed by now (the insert waited for it).
  for (let i = 0; i < chosen.length; i += CHUNK) {
    const ids = chosen.slice(i, i + CHUNK).map((e) => e.id);
    await db.transaction().execute(async (trx) => {
      await endpointsRepo.lockEndpointForQueueing(trx, endpoint.id);
      await queueRepo.requeueEventsOf(trx, endpoint.id, ids, at);
      await signalOutbox(trx);
    });
  }
  return { queued: chosen.length, truncated };
}
