import { inList, insertRows, isPostgres, listArg, precompiled } from '../db/precompiled.js';
import type { Executor, WebhookAttemptTable, WebhookDeliveryTable, WebhookEndpointTable } from '../db/schema.js';
import { uuidv7 } from '../lib/ids.js';
import type { WebhookResult } from './sender.js';

export type EndpointRow = WebhookEndpointTable;
export type DeliveryRow = WebhookDeliveryTable;
export type AttemptRow = WebhookAttemptTable;

/* ---------- endpoints ---------- */

export function insertEndpoint(db: Executor, row: EndpointRow) {
  return db.insertInto('webhook_endpoints').values(row).execute();
}

/** The business's endpoints that are not deleted, newest first. */
export function listEndpoints(db: Executor, businessId: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function countEndpoints(db: Executor, businessId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findEndpoint(db: Executor, businessId: string, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Takes the business's row lock until the transaction ends (PostgreSQL; SQLite has one writer),
 * so that two concurrent creates cannot both see 19 endpoints and make 21.
 */
export function lockBusiness(db: Executor, businessId: string) {
  return db
    .selectFrom('businesses')
    .select('id')
    .where('id', '=', businessId)
    .$if(isPostgres(db), (q) => q.forUpdate())
    .executeTakeFirst();
}

export function softDeleteEndpoint(db: Executor, businessId: string, id: string, at: string) {
  return db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: at, active: 0, updated_at: at })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Locks the endpoint's row for the rest of the transaction (PostgreSQL). Recording an outcome
 * takes the endpoint before its delivery, like delete and auto-disable do, so that concurrent
 * outcomes for one endpoint queue up instead of deadlocking.
 */
export async function lockEndpoint(db: Executor, id: string) {
  // SQLite has one writer: the transaction holds every row already.
  if (!isPostgres(db)) return;
  await db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The test operation touches only last_triggered_at: a sample says nothing about real deliveries. */
export function touchEndpoint(db: Executor, id: string, at: string) {
  return db.updateTable('webhook_endpoints').set({ last_triggered_at: at }).where('id', '=', id).execute();
}

/**
 * Counts a batch of attempts against the endpoint, in the order they ended: a success resets the
 * run of failures (`reset`), the failures after the last success extend it. Returns the endpoint
 * as it now is (to decide on auto-disable and further retries).
 */
type EndpointOutcomeArgs = { id: string; failuresAfter: number; failingSince: string | null; at: string };
type EndpointAfterOutcomes = Pick<EndpointRow, 'active' | 'deleted_at' | 'failing_since'>;
const endpointOutcomesAfterSuccess = precompiled<EndpointOutcomeArgs, EndpointAfterOutcomes>((db, arg) =>
  db
    .updateTable('webhook_endpoints')
    .set({ failure_count: arg('failuresAfter'), failing_since: arg('failingSince'), last_triggered_at: arg('at') })
    .where('id', '=', arg('id'))
    .returning(['active', 'deleted_at', 'failing_since']),
);
const endpointOutcomesAllFailed = precompiled<Omit<EndpointOutcomeArgs, 'failingSince'>, EndpointAfterOutcomes>(
  (db, arg) =>
    db
      .updateTable('webhook_endpoints')
      .set((eb) => ({
        failure_count: eb('failure_count', '+', arg('failuresAfter')),
        failing_since: eb.fn.coalesce('failing_since', eb.val(arg('at'))),
        last_triggered_at: arg('at'),
      }))
      .where('id', '=', arg('id'))
      .returning(['active', 'deleted_at', 'failing_since']),
);

export async function recordEndpointOutcomes(
  db: Executor,
  id: string,
  batch: { reset: boolean; failuresAfter: number; at: string },
): Promise<EndpointAfterOutcomes | undefined> {
  const { reset, failuresAfter, at } = batch;
  const rows = reset
    ? await endpointOutcomesAfterSuccess(db, { id, failuresAfter, failingSince: failuresAfter > 0 ? at : null, at })
    : await endpointOutcomesAllFailed(db, { id, failuresAfter, at });
  return rows[0];
}

export function disableEndpoint(db: Executor, id: string, reason: string, at: string) {
  return db
    .updateTable('webhook_endpoints')
    .set({ active: 0, disabled_reason: reason, updated_at: at })
    .where('id', '=', id)
    .where('active', '=', 1)
    .executeTakeFirst();
}

/* ---------- deliveries ---------- */

export function insertDelivery(db: Executor, row: DeliveryRow) {
  return db.insertInto('webhook_deliveries').values(row).execute();
}

/** The log row of one attempt with its outcome and the retry it planned (null: none). */
export function attemptRow(
  deliveryId: string,
  attempt: number,
  result: WebhookResult,
  nextRetryAt: string | null,
  at: string,
): AttemptRow {
  return {
    id: uuidv7(),
    delivery_id: deliveryId,
    attempt,
    status: result.ok ? 'delivered' : 'failed',
    response_status: result.status,
    error: result.ok ? null : result.error,
    duration_ms: Math.round(result.durationMs),
    next_retry_at: nextRetryAt,
    created_at: at,
  };
}

export function insertAttempt(db: Executor, row: AttemptRow) {
  return db.insertInto('webhook_attempts').values(row).execute();
}

export function insertAttempts(db: Executor, rows: AttemptRow[]) {
  return insertRows(db, 'webhook_attempts', rows);
}

export function listDeliveries(db: Executor, endpointId: string, limit: number, offset: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'endpoint_id',
      'event_id',
      'event',
      'status',
      'attempts',
      'response_status',
      'error',
      'next_attempt_at',
      'delivered_at',
      'created_at',
    ])
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}
export type DeliveryListRow = Awaited<ReturnType<typeof listDeliveries>>[number];

export async function countDeliveries(db: Executor, endpointId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function attemptsOf(db: Executor, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return Promise.resolve([] as AttemptRow[]);
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}

export function findDelivery(db: Executor, endpointId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'status', 'lease_id', 'locked_until'])
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Queues one immediate attempt. `requeue` tells an attempt in flight right now (which will
 * overwrite next_attempt_at when it records its outcome) to queue this one after it.
 */
export function requeueDelivery(db: Executor, id: string, at: string) {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, requeue: 1, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Deleted or disabled endpoint: nothing queued for it goes out any more. */
export function cancelQueued(db: Executor, endpointId: string, reason: string, at: string) {
  return db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: eb.case().when('status', '=', 'delivered').then('delivered').else('failed').end(),
      error: reason,
      next_attempt_at: null,
      requeue: 0,
      updated_at: at,
    }))
    .where('endpoint_id', '=', endpointId)
    .where('next_attempt_at', 'is not', null)
    .execute();
}

/* ---------- the dispatcher's queue ---------- */

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
