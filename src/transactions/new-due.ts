import { auditRows } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import { writeDueForContact, writeRows } from '../db/port.js';
import type { Executor, ReminderTable } from '../db/schema.js';
import type { TableRows } from '../db/table-rows.js';
import { localDate } from '../lib/dates.js';
import { timeOrderedToken, uuidv7 } from '../lib/ids.js';
import { duePaymentReference } from '../lib/payment-reference.js';
import { eventRows } from '../outbox/events.js';
import { signalOutbox } from '../outbox/signal.js';
import { remindersForNewDues } from '../reminder-schedule/schedule.js';
import * as aggregates from '../totals/aggregates.js';
import { dueEntry } from './audit.js';
import { transactionEventData } from './presenter.js';
import type { TransactionView } from './repository.js';

export interface NewDue {
  contact: { id: string; name: string; phone: string | null };
  amountPaise: number;
  dueDate: string;
  notes: string | null;
  invoiceNumber: string | null;
  /** the stored recurrence (domain.ts storeRecurrence) and series, when the due repeats */
  recurrence: string | null;
  seriesId: string | null;
}

/**
 * Writes one new pending due with all its consequences, inside the caller's transaction: the row,
 * its automatic reminder, transaction.created and the running totals (in that order). Used by create and by the
 * recurrence of a series.
 */
export async function insertDue(
  trx: Executor,
  business: BusinessRow,
  due: NewDue,
  now: Date,
): Promise<TransactionView> {
  return (await insertDues(trx, business, [due], now))[0] as TransactionView;
}

/**
 * Several new dues with the same consequences as that many insertDue calls (a bulk import's chunk),
 * each step in one statement for all of them: the rows, the reminders, one transaction.created per
 * due, and the totals last.
 */
export async function insertDues(
  trx: Executor,
  business: BusinessRow,
  dues: readonly NewDue[],
  now: Date,
): Promise<TransactionView[]> {
  return writeDues(trx, business, prepareDues(business, dues, now));
}

/** What insertDues writes for some new dues, built and not yet written (prepareDues). */
export interface PreparedDues {
  readonly now: Date;
  readonly rows: TransactionView[];
  readonly reminders: ReminderTable[];
  readonly events: ReturnType<typeof eventRows>;
  /** one transaction.created audit entry per due */
  readonly audit: TableRows;
  /** the dues' contacts that held credit when read (their new dues are settled from it) */
  creditContacts?: ReadonlySet<string>;
}

/**
 * Every row insertDues writes for `dues`, built in JavaScript and nothing written: a bulk import
 * builds its next chunk while the database writes the last one (writeDues).
 */
export function prepareDues(business: BusinessRow, dues: readonly NewDue[], now: Date): PreparedDues {
  const at = now.toISOString();
  const rows = dues.map((due) => newDueRow(business, due, now, at));
  return {
    now,
    rows,
    reminders: remindersForNewDues(business, rows, now),
    events: eventRows(createdEvents(business, rows, now)),
    audit: auditRows(
      business.id,
      at,
      rows.map((row) => dueEntry('created', null, row)),
    ),
  };
}

/**
 * The totals of dues written by several writeDues calls, added up and written once by `write`
 * (a bulk import's last statement): the same deltas as each call writing its own, in one
 * statement per table instead of one per chunk, and on PostgreSQL the business's totals row is
 * locked from that statement to the COMMIT only.
 */
export class DeferredTotals {
  readonly #dues: { dueDate: string; paise: number }[] = [];

  add(rows: readonly TransactionView[]): void {
    for (const sum of dueSums(rows)) this.#dues.push(sum);
  }

  async write(trx: Executor, businessId: string): Promise<void> {
    await aggregates.addPendingDues(trx, businessId, this.#dues);
    this.#dues.length = 0;
  }
}

/**
 * Writes prepareDues' rows inside the caller's transaction (insertDues' steps): the rows, the
 * reminders, the events, then the totals, or with `deferred` the totals added to it for later.
 */
export async function writeDues(
  trx: Executor,
  business: BusinessRow,
  due: PreparedDues,
  deferred?: DeferredTotals,
): Promise<TransactionView[]> {
  const { rows, reminders, events, audit } = due;
  if (rows.length === 0) return rows;
  deferred?.add(rows);
  // The rows, then the totals (issue 26: last, so the totals row is locked from there to the
  // COMMIT); on PostgreSQL all of it one statement.
  await writeRows(
    trx,
    [
      { table: 'transactions', rows, omit: DUE_NOT_STORED },
      { table: 'reminders', rows: reminders },
      { table: 'events', rows: events },
      audit,
    ],
    deferred ? undefined : { businessId: business.id, deltas: aggregates.pendingDuesDeltas(dueSums(rows)) },
  );
  await signalOutbox(trx);
  return rows;
}

function dueSums(rows: readonly TransactionView[]) {
  return rows.map((r) => ({ dueDate: r.due_date, paise: r.amount_paise }));
}

/** The keys of a TransactionView that are the contact's, not columns of transactions. */
const DUE_NOT_STORED = ['contact_name', 'contact_phone'] as const;

/** One transaction.created per new due, as of `now`. */
function createdEvents(business: BusinessRow, rows: readonly TransactionView[], now: Date) {
  const today = localDate(business.timezone, now);
  return rows.map((row) => ({
    businessId: business.id,
    type: 'transaction.created' as const,
    data: transactionEventData(row, today),
    at: now,
  }));
}

/**
 * PostgreSQL (issue 26): one new due, as insertDue, for a contact read before (by an earlier
 * request: DueCreation.createAlone (transactions/create.ts) keeps the contacts it has read) and not read again. Its
 * row's contact_id is the contact's id only while the contact is still the business's with the
 * name and phone the due is written with (they go into the answer and the event) and holds no
 * credit, else NULL, which the column refuses: the whole statement fails and writes nothing
 * (answered null), and the caller reads the contact again. Sent without a transaction, as one
 * statement (db/postgres/due-for-contact.ts).
 *
 * The contact's row is locked (FOR UPDATE) by that check, before the due is written: a receipt of
 * the contact holding the lock is waited for, and the check is made again on the row it left
 * (PostgreSQL rechecks a locked row's conditions on its latest version), so a due is never written
 * open beside credit a concurrent receipt has just left. Locked, the contact then waits for this
 * statement's commit before any receipt of it reads its open dues, and finds this one.
 */
export async function insertDueForContact(
  db: Executor,
  business: BusinessRow,
  due: NewDue,
  now: Date,
): Promise<TransactionView | null> {
  const { rows, reminders, events, audit } = prepareDues(business, [due], now);
  const row = rows[0] as TransactionView;
  const outcome = await writeDueForContact(
    db,
    row,
    DUE_NOT_STORED,
    [{ table: 'reminders', rows: reminders }, { table: 'events', rows: events }, audit],
    { businessId: business.id, deltas: aggregates.pendingDuesDeltas(dueSums(rows)) },
  );
  if (outcome === 'contact changed') return null;
  await signalOutbox(db);
  return row;
}

/** A new due's row as of `now` (`at` is its text, made once for a batch). */
function newDueRow(business: BusinessRow, due: NewDue, now: Date, at: string): TransactionView {
  const id = uuidv7(now.getTime());
  const repeats = due.recurrence !== null;
  return {
    id,
    business_id: business.id,
    contact_id: due.contact.id,
    amount_paise: due.amountPaise,
    currency: business.currency,
    status: 'pending',
    open: 1,
    direction: 'receivable',
    due_date: due.dueDate,
    paid_at: null,
    utr: null,
    payment_method: null,
    invoice_number: due.invoiceNumber,
    notes: due.notes,
    reminder_count: 0,
    claim_count: 0,
    pay_token: timeOrderedToken(now.getTime()),
    payment_reference: duePaymentReference(),
    created_at: at,
    updated_at: at,
    amount_paid_paise: 0,
    amount_adjusted_paise: 0,
    deleted_at: null,
    series_id: repeats ? (due.seriesId ?? id) : null,
    recurrence: due.recurrence,
    recurs_next: repeats ? 1 : 0,
    reminders_paused: 0,
    promise_date: null,
    promise_made_at: null,
    contact_name: due.contact.name,
    contact_phone: due.contact.phone,
  };
}
