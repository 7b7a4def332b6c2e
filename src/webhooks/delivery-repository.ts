import { insertRows } from '../db/insert-rows.js';
import type { Executor, WebhookAttemptTable, WebhookDeliveryTable } from '../db/schema.js';
import { uuidv7 } from '../lib/ids.js';
import type { WebhookResult } from './sender.js';

/** The delivery log the API shows (deliveries and their attempts), and requeueing or cancelling them. */

export type DeliveryRow = WebhookDeliveryTable;
export type AttemptRow = WebhookAttemptTable;

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
