import type { BusinessRow } from '../businesses/repository.js';
import { insertRows } from '../db/insert-rows.js';
import type { Executor, ReminderTable, TransactionTable } from '../db/schema.js';
import { uuidv7 } from '../lib/ids.js';
import { STEP_HOUR, sequenceFor } from './sequence.js';

/*
 * The reminder sequences' schedule, written inside the changes of a due (create, pay, patch,
 * delete) and of a contact (pause). A module below both transactions/ and reminders/:
 * transactions write the schedule, reminders send what it holds, and neither imports the other's
 * writes to do it.
 */

/** Automatic reminders go out at this local time. */
export const AUTOMATIC_HOUR = STEP_HOUR;

/**
 * PRODUCT part 13: a new due gets its sequence of reminders (the business's steps, each at 10:00
 * business time); steps whose moment has already passed are not scheduled. Called inside the
 * transaction that creates the due, so a due never exists without its reminders (nor reminders
 * without their due).
 */
export async function scheduleForNewDue(
  trx: Executor,
  business: Pick<BusinessRow, 'timezone' | 'reminder_steps'>,
  due: Pick<TransactionTable, 'id' | 'business_id' | 'contact_id' | 'due_date'>,
  now: Date,
): Promise<void> {
  await scheduleForNewDues(trx, business, [due], now);
}

/** The sequences of several new dues (a bulk import's chunk) in one statement. */
export async function scheduleForNewDues(
  trx: Executor,
  business: Pick<BusinessRow, 'timezone' | 'reminder_steps'>,
  dues: readonly Pick<TransactionTable, 'id' | 'business_id' | 'contact_id' | 'due_date'>[],
  now: Date,
): Promise<void> {
  // One statement for the whole sequence: creating a due stays one round trip for its reminders.
  await insertRows(trx, 'reminders', remindersForNewDues(business, dues, now));
}

interface KeptStep {
  template: string;
  atMs: number;
  scheduledFor: string;
  until: string | null;
}

/** stepsOfDate's answers, by time zone, steps and due date; started over when full. */
const keptSteps = new Map<string, readonly KeptStep[]>();
const KEPT_STEPS_MAX = 10_000;

/**
 * A due date's steps (sequenceFor) with their moments as text, kept: the time-zone arithmetic was
 * ~4% of a bulk import's CPU, and an import's chunks (and a business's creates) have few dates.
 */
function stepsOfDate(business: Pick<BusinessRow, 'timezone' | 'reminder_steps'>, dueDate: string) {
  const key = `${business.timezone}\u0000${business.reminder_steps}\u0000${dueDate}`;
  let steps = keptSteps.get(key);
  if (!steps) {
    steps = sequenceFor(business.timezone, dueDate, business.reminder_steps).map((step) => ({
      template: step.template,
      atMs: step.at.getTime(),
      scheduledFor: step.at.toISOString(),
      until: step.until?.toISOString() ?? null,
    }));
    if (keptSteps.size >= KEPT_STEPS_MAX) keptSteps.clear();
    keptSteps.set(key, steps);
  }
  return steps;
}

/** The reminder rows scheduleForNewDues inserts, for a writer that inserts them with other rows. */
export function remindersForNewDues(
  business: Pick<BusinessRow, 'timezone' | 'reminder_steps'>,
  dues: readonly Pick<TransactionTable, 'id' | 'business_id' | 'contact_id' | 'due_date'>[],
  now: Date,
): ReminderTable[] {
  const at = now.toISOString();
  const nowMs = now.getTime();
  const rows: ReminderTable[] = [];
  // Dues of one date share their steps (an import's rows have few distinct dates): worked out once
  // per date (stepsOfDate), with the steps already passed left out.
  const stepsOf = new Map<string, readonly KeptStep[]>();
  for (const due of dues) {
    let steps = stepsOf.get(due.due_date);
    if (!steps) {
      steps = stepsOfDate(business, due.due_date).filter((step) => step.atMs > nowMs);
      stepsOf.set(due.due_date, steps);
    }
    for (const step of steps) {
      rows.push({
        id: uuidv7(nowMs),
        business_id: due.business_id,
        transaction_id: due.id,
        contact_id: due.contact_id,
        kind: 'automatic',
        status: 'scheduled',
        template: step.template,
        reason: null,
        scheduled_for: step.scheduledFor,
        sent_at: null,
        attempts: 0,
        lease_id: null,
        locked_until: null,
        provider_message_id: null,
        delivery_status: null,
        delivery_updated_at: null,
        created_at: at,
        updated_at: at,
        step_until: step.until,
      });
    }
  }
  return rows;
}

/** Called inside mark-paid's transaction: nothing more goes out for a paid due. */
export async function cancelForPaidDue(trx: Executor, transactionId: string, now: Date): Promise<void> {
  await cancelScheduled(trx, transactionId, 'paid', now);
}

/** Many dues paid at once (a batch of receipts): their reminders cancelled in one statement per 500 dues. */
export async function cancelForPaidDues(trx: Executor, transactionIds: readonly string[], now: Date): Promise<void> {
  const at = now.toISOString();
  for (let i = 0; i < transactionIds.length; i += 500) {
    await trx
      .updateTable('reminders')
      .set({ status: 'cancelled', reason: 'paid', lease_id: null, locked_until: null, updated_at: at })
      .where('transaction_id', 'in', transactionIds.slice(i, i + 500))
      .where('status', '=', 'scheduled')
      .execute();
  }
}

/** A due removed or paused: what is left of its sequence is cancelled with this reason. */
export async function cancelScheduled(trx: Executor, transactionId: string, reason: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await trx
    .updateTable('reminders')
    .set({ status: 'cancelled', reason, lease_id: null, locked_until: null, updated_at: at })
    .where('transaction_id', '=', transactionId)
    .where('status', '=', 'scheduled')
    .execute();
}

/**
 * A new due date, or a pause lifted: what is left of the sequence is replaced by the steps of the
 * due as it is now that are still ahead (cancelled at once while the contact is paused). Steps a
 * pause cancelled whose moment is still ahead are replaced too; sent steps and those whose moment
 * passed stay as they were.
 */
export async function rescheduleSequence(
  trx: Executor,
  business: Pick<BusinessRow, 'timezone' | 'reminder_steps'>,
  due: Pick<TransactionTable, 'id' | 'business_id' | 'contact_id' | 'due_date'>,
  now: Date,
): Promise<void> {
  await trx
    .deleteFrom('reminders')
    .where('transaction_id', '=', due.id)
    .where('kind', '=', 'automatic')
    .where((eb) =>
      eb.or([
        eb('status', '=', 'scheduled'),
        eb.and([
          eb('status', '=', 'cancelled'),
          eb('reason', '=', 'paused'),
          eb('scheduled_for', '>', now.toISOString()),
        ]),
      ]),
    )
    .execute();
  await scheduleForNewDue(trx, business, due, now);
  // The contact's own pause still holds the new steps.
  const contact = await trx
    .selectFrom('contacts')
    .select('reminders_paused')
    .where('id', '=', due.contact_id)
    .executeTakeFirst();
  if (contact?.reminders_paused === 1) await cancelScheduled(trx, due.id, 'paused', now);
}

/**
 * PRODUCT part 13: a contact's pause holds every one of its open dues' sequences (cancelled with
 * reason `paused`); lifting it puts back what is still ahead, except for dues paused on their own.
 * O(the contact's open dues), in the transaction of the contact's change.
 */
export async function pauseContactSequences(
  trx: Executor,
  business: Pick<BusinessRow, 'timezone' | 'reminder_steps'>,
  contactId: string,
  paused: boolean,
  now: Date,
): Promise<void> {
  const dues = await trx
    .selectFrom('transactions')
    .select(['id', 'business_id', 'contact_id', 'due_date', 'reminders_paused'])
    .where('contact_id', '=', contactId)
    .where('open', '=', 1)
    .execute();
  for (const due of dues) {
    if (paused) await cancelScheduled(trx, due.id, 'paused', now);
    else if (due.reminders_paused !== 1) await rescheduleSequence(trx, business, due, now);
  }
}

export function insertReminder(db: Executor, row: ReminderTable) {
  return insertRows(db, 'reminders', [row]);
}
