import { recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import { addSettledDue } from '../contacts/score-sums.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Executor } from '../db/schema.js';
import { nextUpdatedAt } from '../db/updated-at.js';
import { errors } from '../errors.js';
import { localDate } from '../lib/dates.js';
import { recordEvent } from '../outbox/events.js';
import { cancelScheduled, rescheduleSequence } from '../reminder-schedule/schedule.js';
import * as aggregates from '../totals/aggregates.js';
import { dueEntry } from './audit.js';
import { balanceOf, type Recurrence, storedOpenStatus, storeRecurrence } from './domain.js';
import { liveDue, openDue } from './live-due.js';
import { transactionEventData, transactionPaidEventData } from './presenter.js';
import * as repo from './repository.js';
import type { PatchTransactionInput } from './schema.js';
import { checkSeriesStart, extendSeries } from './series.js';

type OpenStatus = 'pending' | 'overdue';

function recurrenceOf(input: PatchTransactionInput['recurrence']): Recurrence | null {
  if (input === null || input === undefined) return null;
  return { interval: input.interval as Recurrence['interval'], until: input.until ?? null };
}

/**
 * PATCH of a due (PRODUCT part 10), inside the caller's transaction. Only values that differ
 * from the stored ones count as changes; none: nothing is written and no event is emitted.
 * Totals move by the old and new balance and date, the stored status follows a new date
 * (pending <-> overdue), the automatic reminder is rescheduled or cancelled, a series starts or
 * ends, transaction.updated is emitted and audited (each field that changed, before and after).
 */
export async function patchDue(
  trx: Executor,
  business: BusinessRow,
  id: string,
  input: PatchTransactionInput,
  now: Date,
): Promise<repo.TransactionView> {
  const current = openDue(await repo.lockTransaction(trx, business.id, id));
  const today = localDate(business.timezone, now);

  const change: Partial<repo.StoredTransaction> = {};
  if (input.amount_paise !== undefined && input.amount_paise !== Number(current.amount_paise)) {
    const settled = Number(current.amount_paid_paise) + Number(current.amount_adjusted_paise);
    if (input.amount_paise < settled) {
      throw errors.conflict(`amount_paise is below the ${settled} already paid or adjusted`, 'amount_paise');
    }
    change.amount_paise = input.amount_paise;
  }
  if (input.due_date !== undefined && input.due_date !== current.due_date) {
    change.due_date = input.due_date;
    change.status = storedOpenStatus(input.due_date, today);
  }
  if (input.notes !== undefined && input.notes !== current.notes) change.notes = input.notes;
  if (input.invoice_number !== undefined && input.invoice_number !== current.invoice_number) {
    change.invoice_number = input.invoice_number;
  }
  if (input.recurrence !== undefined) {
    const stored = storeRecurrence(recurrenceOf(input.recurrence));
    if (stored !== current.recurrence) {
      change.recurrence = stored;
      // null ends the series here; a new one starts a series (or goes on with this one's).
      change.recurs_next = stored === null ? 0 : 1;
      if (stored !== null && current.series_id === null) change.series_id = current.id;
    }
  }
  if (input.reminders_paused !== undefined && (input.reminders_paused ? 1 : 0) !== current.reminders_paused) {
    change.reminders_paused = input.reminders_paused ? 1 : 0;
  }
  if (Object.keys(change).length === 0) return current;
  // A series that starts, or moves to an older date, must not start from the far past.
  const recurrence = 'recurrence' in change ? change.recurrence : current.recurrence;
  const repeats = recurrence !== null && (change.recurs_next ?? current.recurs_next) === 1;
  if (repeats && (change.recurrence !== undefined || change.due_date !== undefined)) {
    checkSeriesStart(change.due_date ?? current.due_date, today);
  }

  change.updated_at = nextUpdatedAt(current.updated_at, now);
  // Lowered to exactly what was paid (and adjusted): the due is settled by what it has.
  const settles =
    change.amount_paise !== undefined &&
    change.amount_paise === Number(current.amount_paid_paise) + Number(current.amount_adjusted_paise);
  if (settles) {
    const last = (await repo.listPayments(trx, business.id, id)).at(-1);
    Object.assign(change, {
      status: 'paid',
      open: 0,
      paid_at: now.toISOString(),
      utr: last?.utr ?? null,
      payment_method: last?.payment_method ?? 'api',
    });
  }
  const updated: repo.TransactionView = { ...current, ...change };
  try {
    await repo.updateTransaction(trx, business.id, id, change);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw errors.conflict('another due of this series already has this due_date', 'due_date');
    }
    throw error;
  }

  if (change.amount_paise !== undefined || change.due_date !== undefined) {
    await aggregates.removeOpenDue(trx, business.id, {
      status: current.status as OpenStatus,
      dueDate: current.due_date,
      balancePaise: balanceOf(current),
    });
    if (settles) await aggregates.addPaidDue(trx, business.id, Number(updated.amount_paise));
    else
      await aggregates.addOpenDue(trx, business.id, {
        status: updated.status as OpenStatus,
        dueDate: updated.due_date,
        balancePaise: balanceOf(updated),
      });
  }
  if (settles) {
    await addSettledDue(trx, business, updated, now.toISOString());
    await cancelScheduled(trx, id, 'paid', now);
  }
  if (!settles && (change.due_date !== undefined || change.reminders_paused !== undefined)) {
    if (updated.reminders_paused === 1) await cancelScheduled(trx, id, 'paused', now);
    else await rescheduleSequence(trx, business, updated, now);
  }
  await recordEvent(trx, {
    businessId: business.id,
    type: 'transaction.updated',
    data: transactionEventData(updated, today),
    at: now,
  });
  if (settles) {
    await recordEvent(trx, {
      businessId: business.id,
      type: 'transaction.paid',
      data: transactionPaidEventData(updated),
      at: now,
    });
  }
  await recordAudit(trx, business.id, now, [dueEntry('updated', current, updated)]);
  if (change.recurs_next === 1) await extendSeries(trx, business, id, today, now);
  return updated;
}

/**
 * DELETE of a due (PRODUCT part 10), inside the caller's transaction: only a due without
 * payments; the row stays (soft delete) with open = -1, it leaves the totals, its reminders are
 * cancelled, its series ends here, and transaction.deleted carries the due as it was (the event,
 * and the audit entry: every field before, null after).
 */
export async function removeDue(trx: Executor, business: BusinessRow, id: string, now: Date): Promise<void> {
  const current = liveDue(await repo.lockTransaction(trx, business.id, id));
  if (current.status === 'paid' || Number(current.amount_paid_paise) > 0 || Number(current.amount_adjusted_paise) > 0) {
    throw errors.conflict('a due with payments or adjustments cannot be deleted');
  }
  const at = nextUpdatedAt(current.updated_at, now);
  await repo.updateTransaction(trx, business.id, id, {
    open: -1,
    deleted_at: now.toISOString(),
    updated_at: at,
    recurs_next: 0,
  });
  await aggregates.removeOpenDue(trx, business.id, {
    status: current.status as OpenStatus,
    dueDate: current.due_date,
    balancePaise: balanceOf(current),
  });
  await cancelScheduled(trx, id, 'deleted', now);
  await recordAudit(trx, business.id, now, [dueEntry('deleted', current, null)]);
  await recordEvent(trx, {
    businessId: business.id,
    type: 'transaction.deleted',
    data: transactionEventData({ ...current, updated_at: at }, localDate(business.timezone, now)),
    at: now,
  });
}
