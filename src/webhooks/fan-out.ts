import type { Executor } from '../db/schema.js';
import { uuidv7 } from '../lib/ids.js';
import type * as deliveriesRepo from './delivery-repository.js';
import type { Leased, LeaseTerms } from './leases.js';
import { deliveryBody } from './payload.js';
import * as queueRepo from './queue-repository.js';

/**
 * The fan-out: outbox events become one delivery per subscribed endpoint, and the events are
 * marked dispatched, in the caller's transaction (so an event is fanned out exactly once).
 * Fans out up to `limit` events. The first `lease` deliveries it creates are created already
 * leased to this worker and returned, ready to send: no claim query for new work.
 */
export async function fanOutIn(
  trx: Executor,
  terms: LeaseTerms,
  limit: number,
  lease = 0,
): Promise<{ events: number; leased: Leased[] }> {
  const events = await queueRepo.claimEvents(trx, limit);
  if (events.length === 0) return { events: 0, leased: [] };
  const businessIds = [...new Set(events.map((e) => e.business_id))];
  const endpoints = (await queueRepo.activeEndpointsOf(trx, businessIds)).map((e) => ({
    ...e,
    subscribed: new Set(JSON.parse(e.events) as string[]),
  }));
  const clockNow = terms.clock.now();
  const now = clockNow.toISOString();
  const leaseId = uuidv7();
  const lockedUntil = new Date(clockNow.getTime() + terms.leaseMs).toISOString();
  const rows: deliveriesRepo.DeliveryRow[] = [];
  const leased: Leased[] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (endpoint.business_id !== event.business_id || !endpoint.subscribed.has(event.type)) continue;
      // An endpoint gets the events that happened after it was created, not the history.
      if (endpoint.created_at > event.created_at) continue;
      const take = leased.length < lease;
      const row: deliveriesRepo.DeliveryRow = {
        id: uuidv7(),
        business_id: event.business_id,
        endpoint_id: endpoint.id,
        event_id: event.id,
        event: event.type,
        body: deliveryBody(event.type, event.created_at, event.payload),
        status: 'pending',
        attempts: 0,
        response_status: null,
        error: null,
        // leased: due again only if this worker's lease runs out (see queueRepo.claimDeliveries)
        next_attempt_at: take ? lockedUntil : now,
        delivered_at: null,
        requeue: 0,
        lease_id: take ? leaseId : null,
        locked_until: take ? lockedUntil : null,
        created_at: now,
        updated_at: now,
      };
      rows.push(row);
      if (take) {
        leased.push({
          id: row.id,
          endpoint_id: row.endpoint_id,
          event_id: row.event_id,
          event: row.event,
          body: row.body,
          url: endpoint.url,
          lease_id: leaseId,
        });
      }
    }
  }
  const created = await queueRepo.insertDeliveries(trx, rows);
  await queueRepo.markDispatched(
    trx,
    events.map((e) => e.id),
    now,
  );
  if (created < rows.length && leased.length > 0) {
    // Some deliveries existed already (a fan-out made twice) and were left as they are: which
    // of ours went in is not known, so the new rows' leases are given back for a claim to take.
    await queueRepo.releaseLeases(
      trx,
      leased.map((d) => d.id),
      [leaseId],
      now,
    );
    return { events: events.length, leased: [] };
  }
  return { events: events.length, leased };
}
