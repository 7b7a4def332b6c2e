import { type CompiledQuery, sql } from 'kysely';
import type { BusinessRow } from '../businesses/repository.js';
import { insertEach, insertJsonQuery } from '../db/insert-each.js';
import { insertRowsQuery, isPostgres, precompiledQuery, writeTogether } from '../db/precompiled.js';
import type { Executor, ReminderTable } from '../db/schema.js';
import { localDate } from '../lib/dates.js';
import { timeOrderedToken, uuidv7 } from '../lib/ids.js';
import { duePaymentReference } from '../lib/payment-reference.js';
import { eventRows } from '../outbox/events.js';
import { signalOutbox } from '../outbox/signal.js';
import { remindersForNewDues } from '../reminder-schedule/schedule.js';
import * as aggregates from '../totals/aggregates.js';
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
  const { rows, reminders, events } = due;
  if (rows.length === 0) return rows;
  deferred?.add(rows);
  if (isPostgres(trx)) {
    // One statement (one round trip) for every row and the totals: one due's as VALUES (a
    // single create, each shape a prepared statement), many dues' as one JSON value per table.
    const writes =
      rows.length === 1
        ? [
            insertRowsQuery(trx, 'transactions', rows.map(storedColumns)),
            insertRowsQuery(trx, 'reminders', reminders),
            insertRowsQuery(trx, 'events', events),
          ]
        : [
            insertJsonQuery('transactions', rows, DUE_NOT_STORED),
            insertJsonQuery('reminders', reminders),
            insertJsonQuery('events', events),
          ];
    const sent = writes.filter((q) => q !== undefined);
    if (deferred) await insertDueTogether(trx, sent.slice(0, -1), sent.at(-1) as CompiledQuery);
    else await insertDueTogether(trx, sent, aggregates.pendingDuesQuery(business.id, dueSums(rows)));
    return rows;
  }
  // Each table's rows through one prepared single-row INSERT run per row on SQLite (insertEach:
  // its fastest way in, bench/bulk-floor.ts).
  await insertEach(trx, 'transactions', rows, DUE_NOT_STORED);
  await insertEach(trx, 'reminders', reminders);
  await insertEach(trx, 'events', events);
  await signalOutbox(trx);
  // Last (issue 26): the totals row is locked from here to the COMMIT on PostgreSQL; SQLite keeps
  // the same order.
  if (!deferred) await aggregates.addPendingDues(trx, business.id, dueSums(rows));
  return rows;
}

function dueSums(rows: readonly TransactionView[]) {
  return rows.map((r) => ({ dueDate: r.due_date, paise: r.amount_paise }));
}

/** The keys of a TransactionView that are the contact's, not columns of transactions. */
const DUE_NOT_STORED = ['contact_name', 'contact_phone'] as const;

function storedColumns({ contact_name: _n, contact_phone: _p, ...stored }: TransactionView) {
  return stored;
}

/**
 * PostgreSQL (issue 26): new dues' rows, reminders and events (`writes`, in that order) and `last`
 * (their totals) in ONE statement (one round trip instead of four), the same rows and deltas as
 * insertDues' steps. The totals are the last part, and their row is held for this statement and
 * the COMMIT. Being one statement, it is atomic without a transaction:
 * TransactionService.createAlone sends it so (with nothing else written: keep it one statement).
 */
async function insertDueTogether(trx: Executor, writes: readonly (CompiledQuery | undefined)[], last: CompiledQuery) {
  await writeTogether(
    trx,
    writes.filter((q) => q !== undefined),
    last,
  );
  await signalOutbox(trx);
}

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
 * request: TransactionService.createAlone keeps the contacts it has read) and not read again. Its
 * row's contact_id is the contact's id only while the contact is still the business's with the
 * name and phone the due is written with (they go into the answer and the event) and holds no
 * credit, else NULL, which the column refuses: the whole statement fails and writes nothing
 * (isContactChanged), and the caller reads the contact again. Sent without a transaction, as one
 * statement.
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
): Promise<TransactionView> {
  const { rows, reminders, events } = prepareDues(business, [due], now);
  const row = rows[0] as TransactionView;
  await insertDueTogether(
    db,
    [dueForContactQuery(db, row), insertRowsQuery(db, 'reminders', reminders), insertRowsQuery(db, 'events', events)],
    aggregates.pendingDuesQuery(business.id, dueSums(rows)),
  );
  return row;
}

/** Whether `error` is insertDueForContact's statement refusing a contact that changed (or is not the business's). */
export function isContactChanged(error: unknown): boolean {
  const e = error as { code?: unknown; table?: unknown; column?: unknown } | null;
  return e?.code === '23502' && e.table === 'transactions' && e.column === 'contact_id';
}

/** Every stored column of a due (TransactionView without the contact's name and phone). */
const STORED_COLUMNS: Record<keyof Omit<TransactionView, 'contact_name' | 'contact_phone'>, true> = {
  id: true,
  business_id: true,
  contact_id: true,
  amount_paise: true,
  currency: true,
  status: true,
  open: true,
  direction: true,
  due_date: true,
  paid_at: true,
  utr: true,
  payment_method: true,
  invoice_number: true,
  notes: true,
  reminder_count: true,
  claim_count: true,
  pay_token: true,
  created_at: true,
  updated_at: true,
  amount_paid_paise: true,
  amount_adjusted_paise: true,
  deleted_at: true,
  series_id: true,
  recurrence: true,
  recurs_next: true,
  reminders_paused: true,
  promise_date: true,
  promise_made_at: true,
  payment_reference: true,
};

const dueForContactQuery = precompiledQuery<Record<keyof TransactionView, unknown>>((db, arg) =>
  db.insertInto('transactions').values({
    ...Object.fromEntries(Object.keys(STORED_COLUMNS).map((column) => [column, arg(column as keyof TransactionView)])),
    contact_id: sql`(select c.id from contacts c where c.id = ${arg('contact_id')} and c.business_id = ${arg('business_id')}
      and c.name = ${arg('contact_name')} and c.phone is not distinct from ${arg('contact_phone')}
      and c.credit_paise = 0 for update)`,
  } as never),
);

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
