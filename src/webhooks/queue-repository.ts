import { insertRows } from '../db/insert-rows.js';
import { lockedRows } from '../db/port.js';
import type { Executor } from '../db/schema.js';
import type { DeliveryRow } from './delivery-repository.js';

/** The dispatcher's queue: outbox events fanned out to deliveries, leases on due deliveries, outcomes. */

/** Outbox events not yet fanned out, oldest first; locked (SKIP LOCKED) against other workers. */
export function claimEvents(db: Executor, limit: number) {
  return db
    .selectFrom('events')
    .select(['id', 'business_id', 'type', 'payload', 'created_at'])
    .where('dispatched_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .$call(lockedRows(db, { skipLocked: true }))
    .execute();
}

/** Active endpoints of these businesses (the fan-out filters by event name in memory). */
export function activeEndpointsOf(db: Executor, businessIds: string[]) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'business_id', 'events', 'url', 'created_at'])
    .where('business_id', 'in', businessIds)
    .where('active', '=', 1)
    .where('deleted_at', 'is', null)
    .execute();
}

/**
 * Inserts deliveries; one that exists already (a fan-out run twice) is left as it is. Returns
 * how many were inserted.
 */
export function insertDeliveries(db: Executor, rows: DeliveryRow[]) {
  return insertRows(db, 'webhook_deliveries', rows, { ignoreConflictOn: ['event_id', 'endpoint_id'] });
}

export async function markDispatched(db: Executor, ids: string[], at: string) {
  await db.updateTable('events').set({ dispatched_at: at }).where('id', 'in', ids).execute();
}

/**
 * Leases up to `limit` deliveries whose next attempt is due (or whose sender's lease ran out: a
 * crash mid-attempt) to `leaseId`, for endpoints still active. A leased delivery's next attempt
 * is due when its lease runs out (next_attempt_at = locked_until): the attempt in flight records
 * the real next one, and until then the due index does not hold it among the due ones, so the
 * claim never walks past the deliveries in flight. On PostgreSQL the rows are picked
 * FOR UPDATE SKIP LOCKED, so concurrent workers never take the same row; the caller runs this in
 * a transaction.
 */
export async function claimDeliveries(
  db: Executor,
  opts: { now: string; leaseId: string; lockedUntil: string; limit: number },
): Promise<string[]> {
  // Driven by the due index (next_attempt_at), with the endpoint checked per row: an `endpoint_id
  // in (active endpoints)` filter let SQLite walk every delivery an endpoint ever had and sort them.
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.next_attempt_at', '<=', opts.now)
    .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', opts.now)]))
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_endpoints as e')
          .select('e.id')
          .whereRef('e.id', '=', 'd.endpoint_id')
          .where('e.active', '=', 1)
          .where('e.deleted_at', 'is', null),
      ),
    )
    .orderBy('d.next_attempt_at')
    .limit(opts.limit)
    .$call(lockedRows(db, { of: 'd', skipLocked: true }))
    .execute();
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return [];
  await db
    .updateTable('webhook_deliveries')
    .set({
      lease_id: opts.leaseId,
      locked_until: opts.lockedUntil,
      next_attempt_at: opts.lockedUntil,
      status: 'pending',
      requeue: 0,
    })
    .where('id', 'in', ids)
    .execute();
  return ids;
}

/** Gives back leased deliveries that were not attempted (a worker stopping): due again at once. */
export async function releaseLeases(db: Executor, ids: string[], leaseIds: string[], now: string) {
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_id: null, locked_until: null, next_attempt_at: now })
    .where('id', 'in', ids)
    .where('lease_id', 'in', leaseIds)
    .execute();
}

/** What an attempt needs: the delivery and its endpoint's URL (its secrets are read when it is sent). */
export function leasedDeliveries(db: Executor, ids: string[], leaseId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'd.endpoint_id', 'd.event_id', 'd.event', 'd.body', 'e.url'])
    .where('d.id', 'in', ids)
    .where('d.lease_id', '=', leaseId)
    .execute();
}

export type LeasedDelivery = Awaited<ReturnType<typeof leasedDeliveries>>[number];

/** These deliveries with their current lease, locked (in id order) for the outcomes' transaction. */
export function findLeasedMany(db: Executor, ids: string[]) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts', 'requeue', 'lease_id'])
    .where('id', 'in', ids)
    .orderBy('id')
    .$call(lockedRows(db))
    .execute();
}

export function updateDelivery(
  db: Executor,
  id: string,
  patch: Partial<Omit<DeliveryRow, 'id' | 'business_id' | 'endpoint_id' | 'event_id' | 'event' | 'body'>>,
) {
  return db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute();
}

/**
 * Records the first-or-later successful attempt of these leased deliveries, all answered with
 * `responseStatus` (the caller holds their rows: the lease check was made in this transaction).
 */
export async function markDelivered(db: Executor, ids: string[], responseStatus: number, at: string) {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'delivered',
      attempts: eb('attempts', '+', 1),
      response_status: responseStatus,
      error: null,
      delivered_at: at,
      next_attempt_at: null,
      requeue: 0,
      lease_id: null,
      locked_until: null,
      updated_at: at,
    }))
    .where('id', 'in', ids)
    .execute();
}

/** Age in seconds of the oldest work waiting: an undispatched event or a due delivery. */
export async function oldestWaiting(db: Executor, now: string): Promise<string | null> {
  const [event, delivery] = await Promise.all([
    db
      .selectFrom('events')
      .select((eb) => eb.fn.min('created_at').as('at'))
      .where('dispatched_at', 'is', null)
      .executeTakeFirst(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('next_attempt_at', '<=', now)
      .executeTakeFirst(),
  ]);
  const times = [event?.at, delivery?.at].filter((t): t is string => typeof t === 'string');
  return times.length === 0 ? null : (times.sort()[0] as string);
}

/**
 * Queues again the endpoint's deliveries of these events (a replay): pending, due now, and
 * `requeue` set so that one in flight right now queues another attempt after it records. The
 * rows are locked in id order first, the order the outcomes' transaction locks them in, so the
 * two never deadlock on PostgreSQL.
 */
export async function requeueEventsOf(db: Executor, endpointId: string, eventIds: string[], at: string) {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('event_id', 'in', eventIds)
    .orderBy('id')
    .$call(lockedRows(db))
    .execute();
  if (rows.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, requeue: 1, updated_at: at })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .execute();
}
