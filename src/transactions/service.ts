import { type BusinessRow, findBusiness } from '../businesses/repository.js';
import { fuzzyQuery } from '../contacts/fuzzy.js';
import { rarestFirst } from '../contacts/name-terms.js';
import type { ContactRow } from '../contacts/repository.js';
import { findContact } from '../contacts/repository.js';
import { type ContactService, checkContactName, type LongReads, parsePhone } from '../contacts/service.js';
import { writesDueAlone } from '../db/port.js';
import type { Db, Executor, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Answer, IdempotencyStore, Idempotent } from '../idempotency/store.js';
import type { Clock } from '../lib/clock.js';
import { localDate, localMonth } from '../lib/dates.js';
import { type SequenceStepView, sequenceFromJson } from '../reminder-schedule/steps.js';
import * as aggregates from '../totals/aggregates.js';
import { type ReceiptInput, recordReceiptIn, useCreditIn } from './account.js';
import { patchDue, removeDue } from './changes.js';
import { balanceOf, type Recurrence, storeRecurrence } from './domain.js';
import { openDue } from './live-due.js';
import {
  DeferredTotals,
  insertDueForContact,
  type NewDue,
  type PreparedDues,
  prepareDues,
  writeDues,
} from './new-due.js';
import { type PaymentInput, type PaymentSource, type RecordedPayment, recordPaymentIn } from './payments.js';
import { lockContacts as lockContactRows } from './receipt-repository.js';
import * as repo from './repository.js';
import type {
  CreateTransactionInput,
  ListTransactionsInput,
  MarkPaidInput,
  PatchTransactionInput,
  StatusFilter,
} from './schema.js';
import { checkSeriesStart, DueBudget, extendSeries } from './series.js';

/**
 * From this many dues changed since a `since`, the list walks the due-date order instead of
 * sorting every match (transactions/repository.ts filterCondition).
 */
const SINCE_MANY = 1000;
/** How many (business, since) pairs sinceMatchesMany keeps (a sync's pages ask with one `since`). */
const MANY_SINCE_KEPT = 1000;

/** The statuses that are one value of `open` (the others also split on the due date). */
const OPEN_OF_STATUS: Partial<Record<StatusFilter, 0 | 1>> = { outstanding: 1, paid: 0 };

/** How many contacts createAlone keeps (read once, then checked by the create's own statement). */
const CONTACTS_KEPT = 10_000;

/** Contacts locked per statement by lockContacts (an import's may be 10,000). */
const CONTACTS_PER_LOCK = 1000;

/** The zone whose date changes first (UTC+14): no business anywhere is past this date yet. */
const EARLIEST_ZONE = 'Pacific/Kiritimati';

export interface CreatedTransaction {
  transaction: repo.TransactionView;
  contactCreated: boolean;
}

export class TransactionService {
  /** sinceMatchesMany's kept yes answers, oldest first */
  readonly #manySince = new Map<string, true>();
  /** createAlone's contacts, by business and id, as last read (or written with a due) */
  readonly #contacts = new Map<string, ContactRow>();

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      contacts: ContactService;
      idempotency: IdempotencyStore;
      reads?: LongReads;
    },
  ) {}

  today(business: BusinessRow): string {
    return localDate(business.timezone, this.deps.clock.now());
  }

  /**
   * Creates a due (PRODUCT part 3) in its own database transaction; with `idem` the Idempotency-Key
   * is claimed and the response stored in that same transaction, and the answer is the response
   * (first or replayed).
   */
  create(business: BusinessRow, input: CreateTransactionInput): Promise<CreatedTransaction>;
  create(business: BusinessRow, input: CreateTransactionInput, idem: Idempotent<CreatedTransaction>): Promise<Answer>;
  create(
    business: BusinessRow,
    input: CreateTransactionInput,
    idem?: Idempotent<CreatedTransaction>,
  ): Promise<CreatedTransaction | Answer> {
    if (
      idem?.idempotencyKey === undefined &&
      input.contact_id !== undefined &&
      input.contact_phone === undefined &&
      input.recurrence == null &&
      writesDueAlone(this.deps.db)
    ) {
      const created = this.createAlone(business, input, input.contact_id);
      return idem ? created.then((result) => ({ ...idem.respond(result), replayed: false })) : created;
    }
    return this.deps.db.transaction().execute<CreatedTransaction | Answer>((trx) => {
      const work = () => this.createIn(trx, business, input);
      return idem ? this.deps.idempotency.once(trx, business.id, idem, work) : work();
    });
  }

  /**
   * PostgreSQL (issue 26): a due for an existing contact, with no phone to fill in, no series and no
   * Idempotency-Key, is written by ONE statement (new-due.ts insertDueTogether: the due, its
   * reminders, its event and the totals), atomic by itself, so it is sent without BEGIN and COMMIT:
   * two round trips fewer, and the business's totals row is locked only inside the server, for
   * that statement and its commit. Anything that would write more goes through createIn.
   *
   * The contact is read once and kept (by business and id, at most CONTACTS_KEPT): the statement
   * writes the due only while the contact is still the business's with the kept name and phone
   * (insertDueForContact), so a create for a contact seen before is one round trip. When it has
   * changed (in any process) the statement writes nothing, and the contact is read again.
   */
  private async createAlone(business: BusinessRow, input: CreateTransactionInput, contactId: string) {
    this.checkCreate(business, input);
    const key = `${business.id}/${contactId}`;
    let contact = this.#contacts.get(key);
    for (let attempt = 1; attempt <= 2; attempt++) {
      if (!contact) {
        contact = await findContact(this.deps.db, business.id, contactId);
        if (!contact) throw errors.unprocessable('contact_id does not match a contact of this business', 'contact_id');
        // Holding credit: the new due is settled from it, which the one statement cannot do.
        if (Number(contact.credit_paise) > 0) break;
      }
      let transaction: repo.TransactionView | null;
      try {
        transaction = await insertDueForContact(
          this.deps.db,
          business,
          this.newDue(input, contact),
          this.deps.clock.now(),
        );
      } catch (error) {
        this.#contacts.delete(key);
        throw error;
      }
      if (transaction) {
        if (!this.#contacts.has(key)) {
          if (this.#contacts.size >= CONTACTS_KEPT) this.#contacts.clear();
          this.#contacts.set(key, contact);
        }
        return { transaction, contactCreated: false };
      }
      this.#contacts.delete(key);
      contact = undefined;
    }
    // Changed between our read and our write twice running, or holding credit: created as any
    // other create is (the contact locked and read, then the write, in one transaction), never
    // answered as a failure.
    return this.deps.db.transaction().execute((trx) => this.createIn(trx, business, input));
  }

  /**
   * Creates a due inside the caller's transaction (a larger change, a batch): the contact is taken
   * by id or found/created by name; the totals and the transaction.created event are written with it.
   */
  async createIn(trx: Trx, business: BusinessRow, input: CreateTransactionInput): Promise<CreatedTransaction> {
    const checked = this.checkCreate(business, input);
    const found = await this.contactFor(trx, business, input, checked);
    const [contact] = await this.lockContacts(trx, business, [found.contact]);
    const [transaction] = await this.insertMany(trx, business, [{ input, contact: contact as ContactRow }]);
    const contactCreated = found.contactCreated;
    return { transaction: transaction as repo.TransactionView, contactCreated };
  }

  /** The create rules that need no database: exactly one of contact_id / contact_name, the name and phone rules. */
  checkCreate(
    business: BusinessRow,
    input: CreateTransactionInput,
  ): { name: string | undefined; phone: string | null } {
    if (input.contact_id !== undefined && input.contact_name !== undefined) {
      throw errors.invalid('contact_id', 'give only one of contact_id or contact_name');
    }
    if (input.contact_id === undefined && input.contact_name === undefined) {
      throw errors.invalid('contact_name', 'one of contact_id or contact_name is required');
    }
    if (input.recurrence != null) checkSeriesStart(input.due_date, this.today(business));
    return {
      name: input.contact_name === undefined ? undefined : checkContactName(input.contact_name, 'contact_name'),
      phone: input.contact_phone === undefined ? null : parsePhone(input.contact_phone, business, 'contact_phone'),
    };
  }

  /** A create body's contact: the business's contact by id (else 422), or found or created by name. */
  async contactFor(
    t: Trx,
    business: BusinessRow,
    input: CreateTransactionInput,
    checked = this.checkCreate(business, input),
  ): Promise<{ contact: ContactRow; contactCreated: boolean }> {
    if (input.contact_id !== undefined) {
      const found = await findContact(t, business.id, input.contact_id);
      if (!found) throw errors.unprocessable('contact_id does not match a contact of this business', 'contact_id');
      return { contact: await this.deps.contacts.fillPhone(t, found, checked.phone), contactCreated: false };
    }
    const { contact, created } = await this.deps.contacts.findOrCreate(
      t,
      business,
      checked.name as string,
      checked.phone,
    );
    return { contact, contactCreated: created };
  }

  /**
   * New dues' contacts, each with its credit as read under its row lock (PostgreSQL, in id order,
   * held to the COMMIT), before their dues are written: whether a new due is settled from credit
   * is decided on the committed credit, and a concurrent receipt of the contact either has
   * committed (its credit is seen) or waits for this transaction (and then sees the new due).
   * Every way of creating dues (a create, an import, chat, the dashboard) takes them so, before
   * prepareMany.
   */
  async lockContacts(t: Executor, business: BusinessRow, contacts: readonly ContactRow[]): Promise<ContactRow[]> {
    const credit = new Map<string, number>();
    const ids = [...new Set(contacts.map((c) => c.id))].sort();
    for (let start = 0; start < ids.length; start += CONTACTS_PER_LOCK) {
      for (const row of await lockContactRows(t, business.id, ids.slice(start, start + CONTACTS_PER_LOCK))) {
        credit.set(row.id, Number(row.credit_paise));
      }
    }
    return contacts.map((c) => ({ ...c, credit_paise: credit.get(c.id) ?? c.credit_paise }));
  }

  /**
   * contactFor for several create bodies that name their contact (a bulk import's chunk), with the
   * outcome of calling it for each in turn, in a few statements (ContactService.findOrCreateMany).
   */
  contactsByName(
    t: Trx,
    business: BusinessRow,
    named: readonly { name: string; phone: string | null }[],
  ): Promise<{ contact: ContactRow; created: boolean }[]> {
    return this.deps.contacts.findOrCreateMany(t, business, named);
  }

  /**
   * Writes checked create bodies whose contacts are resolved (contactFor): one create, or a bulk
   * import's chunk in a few statements (new-due.ts insertDues), with the same consequences.
   */
  insertMany(
    t: Executor,
    business: BusinessRow,
    items: readonly { input: CreateTransactionInput; contact: ContactRow }[],
  ): Promise<repo.TransactionView[]> {
    return this.writePrepared(t, business, this.prepareMany(business, items));
  }

  /** Settles new dues from their contacts' credit (a bulk import's, after its deferred totals). */
  async useCredit(t: Executor, business: BusinessRow, written: readonly { id: string; contact_id: string }[]) {
    await useCreditIn(t, business, written, this.deps.clock.now());
  }

  /** Totals for writePrepared to add to, over several calls (new-due.ts DeferredTotals). */
  deferTotals(): DeferredTotals {
    return new DeferredTotals();
  }

  /** The dues one request may still write, shared by writePrepared calls (series.ts DueBudget). */
  dueBudget(): DueBudget {
    return new DueBudget();
  }

  /**
   * insertMany's rows built and not yet written (new-due.ts prepareDues), as of now: a bulk import
   * builds a chunk while the database writes the one before (writePrepared).
   */
  prepareMany(business: BusinessRow, items: readonly { input: CreateTransactionInput; contact: ContactRow }[]) {
    const prepared = prepareDues(
      business,
      items.map(({ input, contact }) => this.newDue(input, contact)),
      this.deps.clock.now(),
    );
    const withCredit = items.filter((i) => Number(i.contact.credit_paise ?? 0) > 0).map((i) => i.contact.id);
    if (withCredit.length > 0) prepared.creditContacts = new Set(withCredit);
    return prepared;
  }

  /** Of written dues, those whose contact held credit when read (prepareMany): to settle from it. */
  creditCandidates(prepared: PreparedDues, rows: readonly repo.TransactionView[]) {
    const contacts = prepared.creditContacts;
    return contacts === undefined ? [] : rows.filter((r) => contacts.has(r.contact_id));
  }

  /**
   * Writes prepareMany's rows, as insertMany does; with `totals` (a bulk import's chunks) their
   * totals are added to it, and written when the caller calls its `write` once after the last.
   */
  async writePrepared(
    t: Executor,
    business: BusinessRow,
    prepared: PreparedDues,
    totals?: DeferredTotals,
    budget: DueBudget = new DueBudget(),
  ): Promise<repo.TransactionView[]> {
    let rows = await writeDues(t, business, prepared, totals);
    budget.spend(rows.length);
    // A contact holding credit never has an open balance: its new dues are settled from it at
    // once (a bulk import, whose totals are written last, does it after them: useCredit).
    // Only contacts read with credit are looked at again (a create stays one write statement).
    const candidates = this.creditCandidates(prepared, rows);
    if (!totals && candidates.length > 0) {
      const settled = await useCreditIn(t, business, candidates, prepared.now);
      if (settled.size > 0) rows = rows.map((r) => settled.get(r.id) ?? r);
    }
    // A first due whose date has arrived (or passed) catches its series up at once, as far as the
    // request's budget goes (the recurrence worker does the rest).
    for (const row of rows) {
      if (row.recurrence !== null) {
        await extendSeries(t, business, row.id, this.today(business), prepared.now, budget);
      }
    }
    return rows;
  }

  /** A checked create body and its contact, as the new due to write. */
  private newDue(input: CreateTransactionInput, contact: ContactRow): NewDue {
    return {
      contact,
      amountPaise: input.amount_paise,
      dueDate: input.due_date,
      notes: input.notes ?? null,
      invoiceNumber: input.invoice_number ?? null,
      recurrence:
        input.recurrence == null
          ? null
          : storeRecurrence({
              interval: input.recurrence.interval as Recurrence['interval'],
              until: input.recurrence.until ?? null,
            }),
      seriesId: null,
    };
  }

  async get(business: BusinessRow, id: string): Promise<repo.TransactionView> {
    const row = await repo.findTransaction(this.deps.db, business.id, id);
    if (!row) throw errors.notFound('transaction');
    return row;
  }

  /** GET /v1/transactions/{id}: the due and the steps of its reminder sequence (PRODUCT part 13), one statement. */
  async getWithReminders(
    business: BusinessRow,
    id: string,
  ): Promise<{ due: repo.TransactionView; reminders: SequenceStepView[] }> {
    const row = await repo.findTransactionWithSteps(this.deps.db, business.id, id);
    if (!row) throw errors.notFound('transaction');
    const { sequence_steps, ...due } = row;
    return { due, reminders: sequenceFromJson(sequence_steps) };
  }

  /**
   * `more` holds the earlier shape's extra filters: due dates within [dueFrom, dueTo] (inclusive,
   * either bound optional) and a fuzzy contact-name search (contacts/fuzzy.ts; a search without
   * any word is ignored).
   */
  async list(
    business: BusinessRow,
    query: ListTransactionsInput,
    more: { dueFrom?: string; dueTo?: string; fuzzyContactName?: string } = {},
    today: string = this.today(business),
  ) {
    const reads = this.deps.reads;
    if (!reads) return this.listOn(this.deps.db, business, query, more, today);
    return reads.gate.run(business.id, () => this.listOn(reads.db, business, query, more, today));
  }

  private async listOn(
    db: Db,
    business: BusinessRow,
    query: ListTransactionsInput,
    more: { dueFrom?: string; dueTo?: string; fuzzyContactName?: string },
    today: string,
  ) {
    const filter = await this.filterOf(db, business, query, more, today);
    const onlyStatus =
      !filter.includeDeleted &&
      filter.contactId === undefined &&
      filter.since === undefined &&
      filter.dueFrom === undefined &&
      filter.dueTo === undefined &&
      filter.contactName === undefined;
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const after = await this.listPosition(business, query.starting_after, offset);
    // One statement after the other: a business's list holds one read thread at a time (gate).
    const total = onlyStatus ? await this.countFromTotals(business, filter) : await this.count(db, business, filter);
    const found = await this.page(db, business, filter, limit, offset, total, after);
    const rows = found.length > limit ? found.slice(0, limit) : found;
    const hasMore = after === undefined ? offset + rows.length < total : found.length > limit;
    return { rows, total, limit, offset, hasMore };
  }

  /**
   * The rows of one page. A cursor page reads one row more than it shows: whether that row exists
   * is hasMore. An offset page past the middle of the list is read from its other end, so that a
   * deep page skips the rows behind it (few) rather than the ones before it (up to a million).
   */
  private page(
    db: Db,
    business: BusinessRow,
    filter: repo.TransactionFilter,
    limit: number,
    offset: number,
    total: number,
    after: repo.ListPosition | undefined,
  ): Promise<repo.TransactionView[]> {
    if (after !== undefined) return repo.listTransactions(db, business.id, filter, limit + 1, 0, after);
    if (filter.contactName === undefined && offset > total / 2) {
      if (offset >= total) return Promise.resolve([]);
      const shown = Math.min(limit, total - offset);
      return repo.listTransactionsFromEnd(db, business.id, filter, shown, total - offset - shown);
    }
    return repo.listTransactions(db, business.id, filter, limit, offset);
  }

  /** The list's filters as the repository takes them (the list and the bulk export share them). */
  private async filterOf(
    db: Db,
    business: BusinessRow,
    query: Pick<ListTransactionsInput, 'status' | 'contact_id' | 'since' | 'include_deleted'>,
    more: { dueFrom?: string; dueTo?: string; fuzzyContactName?: string },
    today: string,
  ): Promise<repo.TransactionFilter> {
    const filter: repo.TransactionFilter = {
      status: query.status as repo.TransactionFilter['status'],
      contactId: query.contact_id,
      since: query.since === undefined ? undefined : new Date(query.since).toISOString(),
      dueFrom: more.dueFrom,
      dueTo: more.dueTo,
      contactName: undefined,
      today,
      // Deleted dues only reach an incremental sync that asks for them (PRODUCT part 10).
      includeDeleted: query.since !== undefined && query.include_deleted === true,
    };
    const fuzzy = more.fuzzyContactName === undefined ? null : fuzzyQuery(more.fuzzyContactName);
    if (fuzzy !== null) filter.contactName = await rarestFirst(db, business.id, fuzzy);
    if (filter.since !== undefined)
      filter.sinceMatchesMany = await this.sinceMatchesMany(db, business.id, filter.since);
    return filter;
  }

  /**
   * Whether SINCE_MANY+ dues of the business changed at or after `since` (deleted ones too). A
   * sync asks every page with the same `since`, and the answer only ever turns from no to yes
   * (a due's updated_at only moves forward; dues are never removed, only marked deleted), so a
   * yes is kept: one probe per sync rather than one per page. It only picks the plan (both give
   * the same rows and total), so a kept answer can never make a page wrong.
   */
  private async sinceMatchesMany(db: Db, businessId: string, since: string): Promise<boolean> {
    const key = `${businessId} ${since}`;
    if (this.#manySince.has(key)) return true;
    const many = await repo.updatedSinceAtLeast(db, businessId, since, SINCE_MANY);
    if (many) {
      if (this.#manySince.size >= MANY_SINCE_KEPT)
        this.#manySince.delete(this.#manySince.keys().next().value as string);
      this.#manySince.set(key, true);
    }
    return many;
  }

  /**
   * The dues matching the list's filters, `limit` after `after` in the list's order, each as
   * `selection` makes it (repository.ts listTransactionsAs; the bulk export walks every due this
   * way, one CSV line each): each batch is a cursor page, a long read under the business's gate
   * like a list page, without the list's count.
   */
  listBatchAs<R>(
    selection: repo.ListSelection,
    business: BusinessRow,
    query: Pick<ListTransactionsInput, 'status' | 'contact_id' | 'since' | 'include_deleted'>,
    after: repo.ListPosition | undefined,
    limit: number,
    today: string,
    publicBaseUrl: string,
  ): Promise<R[]> {
    const run = async (db: Db) =>
      repo.listTransactionsAs<R>(
        selection,
        db,
        business.id,
        await this.filterOf(db, business, query, {}, today),
        limit,
        after,
        publicBaseUrl,
      );
    const reads = this.deps.reads;
    return reads ? reads.gate.run(business.id, () => run(reads.db)) : run(this.deps.db);
  }

  /** PRODUCT part 17: `starting_after` names a due of this business, and comes without an offset. */
  private async listPosition(
    business: BusinessRow,
    startingAfter: string | undefined,
    offset: number,
  ): Promise<repo.ListPosition | undefined> {
    if (startingAfter === undefined) return undefined;
    if (offset !== 0) throw errors.invalid('offset', 'offset must be 0 or absent with starting_after');
    const position = await repo.findListPosition(this.deps.db, business.id, startingAfter);
    if (!position) throw errors.invalid('starting_after', 'starting_after is not the id of a due of this business');
    return position;
  }

  /**
   * An incremental sync that matches most dues (a first sync from long ago) counts the dues it
   * does not match, from the updated_at index alone, and takes them from the running totals.
   */
  private async count(db: Db, business: BusinessRow, filter: repo.TransactionFilter): Promise<number> {
    const open = filter.status === undefined ? undefined : OPEN_OF_STATUS[filter.status];
    const fromTotals =
      filter.since !== undefined &&
      filter.sinceMatchesMany &&
      !filter.includeDeleted &&
      filter.contactId === undefined &&
      filter.dueFrom === undefined &&
      filter.dueTo === undefined &&
      filter.contactName === undefined &&
      (filter.status === undefined || open !== undefined);
    if (!fromTotals) return repo.countTransactions(db, business.id, filter);
    const all = await this.countFromTotals(business, filter);
    const unmatched = await repo.countUpdatedBefore(db, business.id, filter.since as string, open);
    return all - unmatched;
  }

  /** Status-only counts come from the running totals instead of counting up to millions of rows. */
  private async countFromTotals(business: BusinessRow, filter: repo.TransactionFilter): Promise<number> {
    const now = this.deps.clock.now();
    const t = await aggregates.readTotals(this.deps.db, business.id, filter.today, localMonth(business.timezone, now));
    switch (filter.status) {
      case 'pending':
        return t.pending.count;
      case 'overdue':
        return t.overdue.count;
      case 'outstanding':
        return t.pending.count + t.overdue.count;
      case 'paid':
        return t.paid.count;
      default:
        return t.pending.count + t.overdue.count + t.paid.count;
    }
  }

  /**
   * mark-paid (PRODUCT part 10): one payment of the whole balance. The due is locked first, so of
   * many concurrent calls exactly one settles it (one transaction.paid); the rest get 409.
   */
  async markPaid(
    business: BusinessRow,
    id: string,
    input: MarkPaidInput,
    source: PaymentSource = 'api',
  ): Promise<repo.TransactionView> {
    return this.deps.db.transaction().execute(async (trx) => {
      const current = openDue(await repo.lockTransaction(trx, business.id, id));
      const paid = await recordPaymentIn(
        trx,
        business,
        id,
        { amountPaise: balanceOf(current), utr: input.utr, paymentMethod: input.payment_method, source },
        this.deps.clock.now(),
      );
      return paid.transaction;
    });
  }

  /**
   * Records part or all of what a due owes (PRODUCT part 10) in its own database transaction, with
   * the Idempotency-Key when `idem` is given. Other modules that record a payment as part of a
   * larger change (a confirmed claim, a gateway webhook) call `recordPaymentIn` with their
   * transaction instead.
   */
  recordPayment(business: BusinessRow, transactionId: string, input: PaymentInput): Promise<RecordedPayment>;
  recordPayment(
    business: BusinessRow,
    transactionId: string,
    input: PaymentInput,
    idem: Idempotent<RecordedPayment>,
  ): Promise<Answer>;
  recordPayment(
    business: BusinessRow,
    transactionId: string,
    input: PaymentInput,
    idem?: Idempotent<RecordedPayment>,
  ): Promise<RecordedPayment | Answer> {
    return this.deps.db.transaction().execute<RecordedPayment | Answer>((trx) => {
      const work = () => this.recordPaymentIn(trx, business, transactionId, input);
      return idem ? this.deps.idempotency.once(trx, business.id, idem, work) : work();
    });
  }

  /** A receipt of a contact inside the caller's transaction (account.ts recordReceiptIn). */
  recordReceiptIn(trx: Trx, business: BusinessRow, contactId: string, input: ReceiptInput) {
    return recordReceiptIn(trx, business, contactId, input, this.deps.clock.now());
  }

  recordPaymentIn(trx: Trx, business: BusinessRow, transactionId: string, input: PaymentInput) {
    return recordPaymentIn(trx, business, transactionId, input, this.deps.clock.now());
  }

  /** The contact's oldest open due (due date, then creation): the one a reminder about the account is sent for. */
  async oldestOpen(business: BusinessRow, contactId: string): Promise<repo.TransactionView | undefined> {
    return (await repo.lockOpenDuesOfContact(this.deps.db, business.id, contactId, 1))[0];
  }

  /** A due's payments, oldest first (a deleted due: 404, as every read of it). */
  async listPayments(business: BusinessRow, transactionId: string) {
    await this.get(business, transactionId);
    return repo.listPayments(this.deps.db, business.id, transactionId);
  }

  /** PATCH (changes.ts): only what differs is written; nothing differing, nothing emitted. */
  update(business: BusinessRow, id: string, input: PatchTransactionInput): Promise<repo.TransactionView> {
    return this.deps.db.transaction().execute((trx) => patchDue(trx, business, id, input, this.deps.clock.now()));
  }

  /** DELETE (changes.ts): a soft delete of a due without payments. */
  remove(business: BusinessRow, id: string): Promise<void> {
    return this.deps.db.transaction().execute((trx) => removeDue(trx, business, id, this.deps.clock.now()));
  }

  /** Creates the next dues of every series whose date has arrived (the recurrence worker). */
  async repeatArrived(limit = 500): Promise<number> {
    const now = this.deps.clock.now();
    const rows = await repo.duesToRepeat(this.deps.db, localDate(EARLIEST_ZONE, now), limit);
    let created = 0;
    for (const row of rows) {
      const today = localDate(row.timezone, now);
      if (row.due_date > today) continue;
      created += await this.deps.db.transaction().execute(async (trx) => {
        const business = await findBusiness(trx, row.business_id);
        return business ? extendSeries(trx, business, row.id, today, now) : 0;
      });
    }
    return created;
  }
}
