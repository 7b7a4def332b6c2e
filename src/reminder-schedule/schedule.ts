import type { BusinessRow } from '../businesses/repository.js';
import { insertRows } from '../db/precompiled.js';
import type { Executor, ReminderTable, TransactionTable } from '../db/schema.js';
import { instantAt } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';

/*
 * The automatic reminder's schedule, written inside the changes of a due (create, pay, patch,
 * delete). A module below both transactions/ and reminders/: transactions write the schedule,
 * reminders send what it holds, and neither imports the other's writes to do it.
 */

/** The automatic reminder goes out at this local time on the due date. */
export const AUTOMATIC_HOUR = 10;

/**
 * PRODUCT part 6: a new due gets one automatic reminder at 10:00 on its due date in the business's
 * time zone, unless that moment has passed. Called inside the transaction that creates the due, so
 * a due never exists without its reminder (nor a reminder without its due).
 */
export async function scheduleForNewDue(
  trx: Executor,
  business: Pick<BusinessRow, 'timezone'>,
  due: Pick<TransactionTable, 'id' | 'business_id' | 'contact_id' | 'due_date'>,
  now: Date,
): Promise<void> {
  const at = instantAt(business.timezone, due.due_date, AUTOMATIC_HOUR, 0);
  if (at.getTime() <= now.getTime()) return;
  await insertReminder(trx, {
    id: uuidv7(now.getTime()),
    business_id: due.business_id,
    transaction_id: due.id,
    contact_id: due.contact_id,
    kind: 'automatic',
    status: 'scheduled',
    template: null,
    reason: null,
    scheduled_for: at.toISOString(),
    sent_at: null,
    attempts: 0,
    lease_id: null,
    locked_until: null,
    provider_message_id: null,
    delivery_status: null,
    delivery_updated_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
}

/** Called inside mark-paid's transaction: nothing more goes out for a paid due. */
export async function cancelForPaidDue(trx: Executor, transactionId: string, now: Date): Promise<void> {
  await cancelScheduled(trx, transactionId, 'paid', now);
}

/** A due removed, paused or re-dated: its scheduled automatic reminder is cancelled with this reason. */
export async function cancelScheduled(trx: Executor, transactionId: string, reason: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await trx
    .updateTable('reminders')
    .set({ status: 'cancelled', reason, lease_id: null, locked_until: null, updated_at: at })
    .where('transaction_id', '=', transactionId)
    .where('status', '=', 'scheduled')
    .execute();
}

export function insertReminder(db: Executor, row: ReminderTable) {
  return insertRows(db, 'reminders', [row]);
}
