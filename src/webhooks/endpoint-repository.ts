import { lockRowsNow } from '../db/port.js';
import type { Executor, WebhookEndpointTable } from '../db/schema.js';

/** Webhook endpoints: the rows the API manages, and the failure count the dispatcher keeps on them. */

export type EndpointRow = WebhookEndpointTable;

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
  await lockRowsNow(db, db.selectFrom('webhook_endpoints').select('id').where('id', '=', id));
}

/**
 * Locks the endpoint's row against recording outcomes (lockEndpoint's FOR UPDATE) but not
 * against foreign-key checks of new deliveries (FOR KEY SHARE), for a replay's transactions: a
 * dispatcher cycle recording this endpoint's outcomes waits at its start, or the replay does,
 * holding nothing yet (PostgreSQL; SQLite has one writer).
 */
export async function lockEndpointForQueueing(db: Executor, id: string) {
  await lockRowsNow(db, db.selectFrom('webhook_endpoints').select('id').where('id', '=', id), { noKey: true });
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
export async function recordEndpointOutcomes(
  db: Executor,
  id: string,
  batch: { reset: boolean; failuresAfter: number; at: string },
) {
  const { reset, failuresAfter, at } = batch;
  return db
    .updateTable('webhook_endpoints')
    .set((eb) =>
      reset
        ? { failure_count: failuresAfter, failing_since: failuresAfter > 0 ? at : null, last_triggered_at: at }
        : {
            failure_count: eb('failure_count', '+', failuresAfter),
            failing_since: eb.fn.coalesce('failing_since', eb.val(at)),
            last_triggered_at: at,
          },
    )
    .where('id', '=', id)
    .returning(['active', 'deleted_at', 'failing_since'])
    .executeTakeFirst();
}

export function disableEndpoint(db: Executor, id: string, reason: string, at: string) {
  return db
    .updateTable('webhook_endpoints')
    .set({ active: 0, disabled_reason: reason, disabled_notice_pending: 1, updated_at: at })
    .where('id', '=', id)
    .where('active', '=', 1)
    .executeTakeFirst();
}

/** Every endpoint's sealed secret, deleted ones too, a page at a time in id order (re-sealing). */
export function sealedSecretsAfter(db: Executor, afterId: string | null, limit: number) {
  let query = db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed', 'previous_secret_sealed']);
  if (afterId !== null) query = query.where('id', '>', afterId);
  return query.orderBy('id').limit(limit).execute();
}

/** Replaces a sealed secret only if it is still the one read (another re-seal may have won). */
export function replaceSealedSecret(db: Executor, id: string, from: string, to: string) {
  return db
    .updateTable('webhook_endpoints')
    .set({ secret_sealed: to })
    .where('id', '=', id)
    .where('secret_sealed', '=', from)
    .executeTakeFirst();
}

/** Replaces a rotation's previous sealed secret only if it is still the one read. */
export function replacePreviousSealed(db: Executor, id: string, from: string, to: string) {
  return db
    .updateTable('webhook_endpoints')
    .set({ previous_secret_sealed: to })
    .where('id', '=', id)
    .where('previous_secret_sealed', '=', from)
    .executeTakeFirst();
}

/** The sealed secrets of these endpoints as they are now (signing at sending time). */
export function secretsOf(db: Executor, ids: string[]) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret_sealed', 'previous_secret_sealed', 'previous_secret_expires_at'])
    .where('id', 'in', ids)
    .execute();
}
export type SealedSecrets = Awaited<ReturnType<typeof secretsOf>>[number];

/** A rotation: the new sealed secret in force, the one it replaces kept until `previousExpiresAt` (or dropped: null). */
export function rotateSecret(
  db: Executor,
  id: string,
  next: { sealed: string; previousSealed: string | null; previousExpiresAt: string | null; at: string },
) {
  return db
    .updateTable('webhook_endpoints')
    .set({
      secret_sealed: next.sealed,
      previous_secret_sealed: next.previousSealed,
      previous_secret_expires_at: next.previousExpiresAt,
      updated_at: next.at,
    })
    .where('id', '=', id)
    .execute();
}

/** Endpoints disabled after failures whose business has not been told yet, with who to tell. */
export function pendingDisabledNotices(db: Executor, limit: number) {
  return db
    .selectFrom('webhook_endpoints as e')
    .innerJoin('businesses as b', 'b.id', 'e.business_id')
    .select(['e.id', 'e.business_id', 'e.url', 'b.name as business_name', 'b.phone', 'b.language'])
    .where('e.disabled_notice_pending', '=', 1)
    .orderBy('e.id')
    .limit(limit)
    .execute();
}

export function clearDisabledNotice(db: Executor, id: string) {
  return db.updateTable('webhook_endpoints').set({ disabled_notice_pending: 0 }).where('id', '=', id).execute();
}

/**
 * PATCH: turns the endpoint on or off and changes its url and events. Turned (back) on, its
 * run of failures starts afresh and nothing about a disablement is left to tell.
 */
export function updateEndpoint(
  db: Executor,
  businessId: string,
  id: string,
  patch: { active?: boolean; url?: string; events?: string; reason?: string | null; at: string },
) {
  return db
    .updateTable('webhook_endpoints')
    .set({
      ...(patch.url !== undefined && { url: patch.url }),
      ...(patch.events !== undefined && { events: patch.events }),
      ...(patch.active === true && {
        active: 1,
        failure_count: 0,
        failing_since: null,
        disabled_reason: null,
        disabled_notice_pending: 0,
      }),
      ...(patch.active === false && { active: 0, disabled_reason: patch.reason ?? null, disabled_notice_pending: 0 }),
      updated_at: patch.at,
    })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
