import { type BusinessRow, findBusiness } from '../businesses/repository.js';
import type { Db, Executor } from '../db/schema.js';
import { errors } from '../errors.js';
import { localDate } from '../lib/dates.js';
import { useCreditIn } from './account.js';
import { nextDueDate, nextWithin, parseRecurrence, SERIES_PAST_DAYS, seriesStartTooOld } from './domain.js';
import { insertDue } from './new-due.js';
import { lockContacts } from './receipt-repository.js';
import * as repo from './repository.js';

/** 400 naming due_date when a repeating due's date is older than a series may start (SERIES_PAST_DAYS). */
export function checkSeriesStart(dueDate: string, today: string): void {
  const earliest = seriesStartTooOld(dueDate, today);
  if (earliest !== null) {
    throw errors.invalid(
      'due_date',
      `a repeating due's due_date must be on or after ${earliest} (at most ${SERIES_PAST_DAYS} days ago)`,
    );
  }
}

/** PRODUCT part 26: no request writes more dues than the largest import (10,000 rows). */
export const MAX_DUES_PER_REQUEST = 10_000;

/**
 * How many more dues one request (or one step of the recurrence worker) may write. A series'
 * catch-up stops when it is spent, its latest due still marked to repeat: the recurrence worker
 * goes on from there later, one series per transaction.
 */
export class DueBudget {
  constructor(public remaining = MAX_DUES_PER_REQUEST) {}

  spend(n: number): void {
    this.remaining -= n;
  }
}

/**
 * Creates the next dues of a series from due `fromId` whose date has arrived (`today`, the
 * business's local date): one after another while each new one's date has arrived too (catch-up
 * for a first due in the past), stopping at the first date still ahead or past `until`.
 *
 * Each step first claims the due (recurs_next 1 -> 0, a conditional update): of several workers
 * or processes exactly one gets it, and its next due is written in the same transaction, so a
 * series never gets a date twice nor skips one (the unique (series_id, due_date) index is the
 * last line of defence). Returns how many dues were created: at most what `budget` has left.
 */
export async function extendSeries(
  trx: Executor,
  business: BusinessRow,
  fromId: string,
  today: string,
  now: Date,
  budget: DueBudget = new DueBudget(),
): Promise<number> {
  let created = 0;
  let currentId = fromId;
  for (;;) {
    if (budget.remaining <= 0) return created;
    const current = await repo.findTransaction(trx, business.id, currentId);
    if (current?.recurs_next !== 1 || current.due_date > today) return created;
    // The contact first, then the due (claimed below): the lock order of every change of a
    // contact's dues; the new due's credit is read under it (useCreditIn).
    await lockContacts(trx, business.id, [current.contact_id]);
    if (!(await repo.claimRepeat(trx, current.id))) return created;
    const recurrence = parseRecurrence(current.recurrence);
    if (recurrence === null || current.series_id === null) return created;
    const start = await repo.findSeriesStart(trx, current.series_id);
    const anchorDay = Number((start?.due_date ?? current.due_date).slice(8, 10));
    const next = nextDueDate(current.due_date, recurrence.interval, anchorDay);
    if (next === null || !nextWithin(recurrence, next)) return created;
    if (await repo.seriesHasDate(trx, current.series_id, next)) return created;
    const due = await insertDue(
      trx,
      business,
      {
        contact: { id: current.contact_id, name: current.contact_name, phone: current.contact_phone },
        amountPaise: Number(current.amount_paise),
        dueDate: next,
        notes: current.notes,
        invoiceNumber: null,
        recurrence: current.recurrence,
        seriesId: current.series_id,
      },
      now,
    );
    await useCreditIn(trx, business, [due], now);
    created++;
    budget.spend(1);
    currentId = due.id;
  }
}

/** The zone whose date changes first (UTC+14): no business anywhere is past this date yet. */
const EARLIEST_ZONE = 'Pacific/Kiritimati';

/** Creates the next dues of every series whose date has arrived, at most `limit` series (the recurrence worker). */
export async function repeatArrived(db: Db, now: Date, limit: number): Promise<number> {
  const rows = await repo.duesToRepeat(db, localDate(EARLIEST_ZONE, now), limit);
  let created = 0;
  for (const row of rows) {
    const today = localDate(row.timezone, now);
    if (row.due_date > today) continue;
    created += await db.transaction().execute(async (trx) => {
      const business = await findBusiness(trx, row.business_id);
      return business ? extendSeries(trx, business, row.id, today, now) : 0;
    });
  }
  return created;
}
