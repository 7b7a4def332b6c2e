import { inList, insertRows, isPostgres, listArg, precompiled } from '../db/precompiled.js';
import type { Executor } from '../db/schema.js';
import type { DeliveryRow } from './delivery-repository.js';
import type { EndpointRow } from './endpoint-repository.js';

/** The dispatcher's queue: outbox events fanned out to deliveries, leases on due deliveries, outcomes. */

/*
 * The dispatcher's statements run every cycle: each is compiled once (precompiled), with lists of
 * ids bound as one parameter (inList).
 */

const claimEventsQuery = precompiled<
  { limit: number },
  { id: string; business_id: string; type: string; payload: string; created_at: string }
>((db, arg) =>
  db
    .selectFrom('events')
    .select(['id', 'business_id', 'type', 'payload', 'created_at'])
    .where('dispatched_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(arg('limit'))
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked()),
);

/** Outbox events not yet fanned out, oldest first; locked (SKIP LOCKED) against other workers. */
export function claimEvents(db: Executor, limit: number) {
  return claimEventsQuery(db, { limit });
}

const activeEndpointsQuery = precompiled<
  { businessIds: never },
  Pick<EndpointRow, 'id' | 'business_id' | 'events' | 'url' | 'secret_sealed' | 'created_at'>
>((db, arg) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'business_id', 'events', 'url', 'secret_sealed', 'created_at'])
    .where(inList(db, 'business_id', arg('businessIds')))
    .where('active', '=', 1)
    .where('deleted_at', 'is', null),
);

/** Active endpoints of these businesses (the fan-out filters by event name in memory). */
export function activeEndpointsOf(db: Executor, businessIds: string[]) {
  return activeEndpointsQuery(db, { businessIds: listArg(db, businessIds) });
}

/**
 * Inserts deliveries; one that exists already (a fan-out run twice) is left as it is. Returns
 * how many were inserted.
 */
export function insertDeliveries(db: Executor, rows: DeliveryRow[]) {
  return insertRows(db, 'webhook_deliveries', rows, { ignoreConflictOn: ['event_id', 'endpoint_id'] });
}

const markDispatchedQuery = precompiled<{ ids: never; at: string }, never>((db, arg) =>
  db
    .updateTable('events')
    .set({ dispatched_at: arg('at') })
    .where(inList(db, 'id', arg('ids'))),
);

export async function markDispatched(db: Executor, ids: string[], at: string) {
  await markDispatchedQuery(db, { ids: listArg(db, ids), at });
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
  const rows = await dueDeliveriesQuery(db, { now: opts.now, limit: opts.limit });
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return [];
  await leaseQuery(db, { ids: listArg(db, ids), leaseId: opts.leaseId, lockedUntil: opts.lockedUntil });
  return ids;
}

// Driven by the due index (next_attempt_at), with the endpoint checked per row: an `endpoint_id
// in (active endpoints)` filter let SQLite walk every delivery an endpoint ever had and sort them.
const dueDeliveriesQuery = precompiled<{ now: string; limit: number }, { id: string }>((db, arg) =>
  db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.next_attempt_at', '<=', arg('now'))
    .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', arg('now'))]))
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
    .limit(arg('limit'))
    .$if(isPostgres(db), (q) => q.forUpdate('d').skipLocked()),
);

const leaseQuery = precompiled<{ ids: never; leaseId: string; lockedUntil: string }, never>((db, arg) =>
  db
    .updateTable('webhook_deliveries')
    .set({
      lease_id: arg('leaseId'),
      locked_until: arg('lockedUntil'),
      next_attempt_at: arg('lockedUntil'),
      status: 'pending',
      requeue: 0,
    })
    .where(inList(db, 'id', arg('ids'))),
);

/** Gives back leased deliveries that were not attempted (a worker stopping): due again at once. */
const releaseQuery = precompiled<{ ids: never; leaseIds: never; now: string }, never>((db, arg) =>
  db
    .updateTable('webhook_deliveries')
    .set({ lease_id: null, locked_until: null, next_attempt_at: arg('now') })
    .where(inList(db, 'id', arg('ids')))
    .where(inList(db, 'lease_id', arg('leaseIds'))),
);

export async function releaseLeases(db: Executor, ids: string[], leaseIds: string[], now: string) {
  await releaseQuery(db, { ids: listArg(db, ids), leaseIds: listArg(db, leaseIds), now });
}

export type LeasedDelivery = Pick<DeliveryRow, 'id' | 'endpoint_id' | 'event_id' | 'event' | 'body'> &
  Pick<EndpointRow, 'url' | 'secret_sealed'>;
const leasedQuery = precompiled<{ ids: never; leaseId: string }, LeasedDelivery>((db, arg) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'd.endpoint_id', 'd.event_id', 'd.event', 'd.body', 'e.url', 'e.secret_sealed'])
    .where(inList(db, 'd.id', arg('ids')))
    .where('d.lease_id', '=', arg('leaseId')),
);

/** What an attempt needs: the delivery and its endpoint's URL and sealed secret. */
export function leasedDeliveries(db: Executor, ids: string[], leaseId: string) {
  return leasedQuery(db, { ids: listArg(db, ids), leaseId });
}

const findLeasedQuery = precompiled<{ ids: never }, Pick<DeliveryRow, 'id' | 'attempts' | 'requeue' | 'lease_id'>>(
  (db, arg) =>
    db
      .selectFrom('webhook_deliveries')
      .select(['id', 'attempts', 'requeue', 'lease_id'])
      .where(inList(db, 'id', arg('ids')))
      .orderBy('id')
      .$if(isPostgres(db), (q) => q.forUpdate()),
);

/** These deliveries with their current lease, locked (in id order) for the outcomes' transaction. */
export function findLeasedMany(db: Executor, ids: string[]) {
  return findLeasedQuery(db, { ids: listArg(db, ids) });
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
  await markDeliveredQuery(db, { ids: listArg(db, ids), responseStatus, at });
}

const markDeliveredQuery = precompiled<{ ids: never; responseStatus: number; at: string }, never>((db, arg) =>
  db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'delivered',
      attempts: eb('attempts', '+', 1),
      response_status: arg('responseStatus'),
      error: null,
      delivered_at: arg('at'),
      next_attempt_at: null,
      requeue: 0,
      lease_id: null,
      locked_until: null,
      updated_at: arg('at'),
    }))
    .where(inList(db, 'id', arg('ids'))),
);

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
