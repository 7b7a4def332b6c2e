import { lockedRows } from '../db/port.js';
import type { Executor, ReminderTable } from '../db/schema.js';
import { updatedAtAfter } from '../db/updated-at.js';

export { insertReminder } from '../reminder-schedule/schedule.js';

export type ReminderRow = ReminderTable;

/** Statuses that count against the cooldown and the weekly cap: sent, or possibly on its way. */
const COUNTED = ['sent', 'sending'];

export function findReminder(db: Executor, id: string) {
  return db.selectFrom('reminders').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The reminder if this worker still holds it (a payment may have cancelled it meanwhile). */
export function findLeasedReminder(db: Executor, id: string, leaseId: string) {
  return db
    .selectFrom('reminders')
    .selectAll()
    .where('id', '=', id)
    .where('lease_id', '=', leaseId)
    .where('status', 'in', ['scheduled', 'sending'])
    .executeTakeFirst();
}

/**
 * Locks the contact's row until the transaction ends (PostgreSQL; SQLite has one writer anyway),
 * so that two processes deciding reminders for the same contact take turns and each sees the
 * other's send: the cooldown holds across processes.
 */
export function lockContact(db: Executor, businessId: string, contactId: string) {
  return db
    .selectFrom('contacts')
    .select(['id', 'phone', 'reminders_paused'])
    .where('business_id', '=', businessId)
    .where('id', '=', contactId)
    .$call(lockedRows(db))
    .executeTakeFirst();
}

/** When this contact's reminders went out since `since`, other than `exceptId`. */
export async function recentSends(db: Executor, contactId: string, since: string, exceptId?: string) {
  const rows = await db
    .selectFrom('reminders')
    .select('sent_at')
    .where('contact_id', '=', contactId)
    .where('sent_at', '>', since)
    .where('status', 'in', COUNTED)
    .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId as string))
    .execute();
  return rows.map((r) => r.sent_at).filter((at): at is string => at !== null);
}

export async function isOptedOut(db: Executor, phone: string): Promise<boolean> {
  const row = await db.selectFrom('chat_opt_outs').select('phone').where('phone', '=', phone).executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes up to `limit` automatic reminders that are due, or whose sender's lease ran out (a crash
 * mid-send), and leases them to `leaseId`. On PostgreSQL the rows are picked FOR UPDATE SKIP
 * LOCKED, so concurrent workers never pick the same row; the caller runs this in a transaction.
 */
export async function claimDue(
  db: Executor,
  opts: {
    now: string;
    leaseId: string;
    lockedUntil: string;
    limit: number;
    businessId?: string | undefined;
  },
): Promise<string[]> {
  const due = await db
    .selectFrom('reminders')
    .select('id')
    .where('status', '=', 'scheduled')
    .where('scheduled_for', '<=', opts.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', opts.now)]))
    .$if(opts.businessId !== undefined, (q) => q.where('business_id', '=', opts.businessId as string))
    .orderBy('scheduled_for')
    .limit(opts.limit)
    .$call(lockedRows(db, { skipLocked: true }))
    .execute();
  const stale =
    due.length < opts.limit
      ? await db
          .selectFrom('reminders')
          .select('id')
          .where('status', '=', 'sending')
          .where('kind', '=', 'automatic')
          .where('locked_until', '<=', opts.now)
          .$if(opts.businessId !== undefined, (q) => q.where('business_id', '=', opts.businessId as string))
          .orderBy('locked_until')
          .limit(opts.limit - due.length)
          .$call(lockedRows(db, { skipLocked: true }))
          .execute()
      : [];
  const ids = [...due, ...stale].map((r) => r.id);
  if (ids.length === 0) return [];
  await db
    .updateTable('reminders')
    .set({ lease_id: opts.leaseId, locked_until: opts.lockedUntil, updated_at: opts.now })
    .where('id', 'in', ids)
    .execute();
  return ids;
}

/** A manual send interrupted by a crash never completes: mark it failed once its lease is over. */
export function failStaleManualSends(db: Executor, now: string) {
  return db
    .updateTable('reminders')
    .set({ status: 'failed', reason: 'interrupted', lease_id: null, locked_until: null, updated_at: now })
    .where('status', '=', 'sending')
    .where('kind', '=', 'manual')
    .where('locked_until', '<=', now)
    .executeTakeFirst();
}

export function updateLeasedReminder(
  db: Executor,
  id: string,
  leaseId: string,
  patch: Partial<Omit<ReminderRow, 'id' | 'business_id' | 'transaction_id' | 'contact_id' | 'kind' | 'created_at'>>,
) {
  return db
    .updateTable('reminders')
    .set(patch)
    .where('id', '=', id)
    .where('lease_id', '=', leaseId)
    .where('status', 'in', ['scheduled', 'sending'])
    .executeTakeFirst();
}

export function incrementReminderCount(db: Executor, transactionId: string, at: string) {
  return db
    .updateTable('transactions')
    .set((eb) => ({ reminder_count: eb('reminder_count', '+', 1), updated_at: updatedAtAfter(db, at) }))
    .where('id', '=', transactionId)
    .execute();
}

/** PRODUCT part 3: paying a due cancels the reminders still waiting for it. */
export function findByProviderMessageId(db: Executor, messageId: string) {
  return db
    .selectFrom('reminders')
    .select(['id', 'delivery_status'])
    .where('provider_message_id', '=', messageId)
    .executeTakeFirst();
}

export function findDeliveryOf(db: Executor, id: string) {
  return db.selectFrom('reminders').select(['id', 'delivery_status']).where('id', '=', id).executeTakeFirst();
}

export function setDeliveryStatus(db: Executor, id: string, status: string, reason: string | null, at: string) {
  return db
    .updateTable('reminders')
    .set({ delivery_status: status, delivery_updated_at: at, updated_at: at, ...(reason !== null && { reason }) })
    .where('id', '=', id)
    .execute();
}
