import type { BusinessRow } from '../businesses/repository.js';
import type { ContactRow } from '../contacts/repository.js';
import type { ContactService, LongReads } from '../contacts/service.js';
import type { Db, Executor, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Answer, IdempotencyStore, Idempotent } from '../idempotency/store.js';
import type { Clock } from '../lib/clock.js';
import { localDate } from '../lib/dates.js';
import { type SequenceStepView, sequenceFromJson } from '../reminder-schedule/steps.js';
import { type ReceiptInput, recordReceiptIn } from './account.js';
import { patchDue, removeDue } from './changes.js';
import { type CreatedTransaction, DueCreation } from './create.js';
import { balanceOf } from './domain.js';
import { DueList } from './list.js';
import { openDue } from './live-due.js';
import type { DeferredTotals, PreparedDues } from './new-due.js';
import { type PaymentInput, type PaymentSource, type RecordedPayment, recordPaymentIn } from './payments.js';
import * as repo from './repository.js';
import type { CreateTransactionInput, ListTransactionsInput, MarkPaidInput, PatchTransactionInput } from './schema.js';
import { type DueBudget, repeatArrived } from './series.js';

export type { CreatedTransaction } from './create.js';

/**
 * What the rest of the service does with dues, in one place: each method opens the transaction
 * (or takes the caller's) and hands the work to the module that holds it: creating dues
 * (create.ts), listing them (list.ts), payments and receipts (payments.ts, account.ts), changes
 * (changes.ts), series (series.ts).
 */
export class TransactionService {
  readonly #creation: DueCreation;
  readonly #list: DueList;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      contacts: ContactService;
      idempotency: IdempotencyStore;
      reads?: LongReads;
    },
  ) {
    this.#creation = new DueCreation(deps);
    this.#list = new DueList(deps);
  }

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
    return idem ? this.#creation.create(business, input, idem) : this.#creation.create(business, input);
  }

  /** create.ts createIn: a due inside the caller's transaction (a larger change, a batch). */
  createIn(trx: Trx, business: BusinessRow, input: CreateTransactionInput): Promise<CreatedTransaction> {
    return this.#creation.createIn(trx, business, input);
  }

  /** create.ts checkCreate: the create rules that need no database. */
  checkCreate(business: BusinessRow, input: CreateTransactionInput) {
    return this.#creation.checkCreate(business, input);
  }

  /** create.ts contactFor: a create body's contact, by id or found or created by name. */
  contactFor(
    t: Trx,
    business: BusinessRow,
    input: CreateTransactionInput,
    checked?: ReturnType<DueCreation['checkCreate']>,
  ): Promise<{ contact: ContactRow; contactCreated: boolean }> {
    return this.#creation.contactFor(t, business, input, checked);
  }

  /** create.ts lockContacts: new dues' contacts locked, with their committed credit. */
  lockContacts(t: Executor, business: BusinessRow, contacts: readonly ContactRow[]): Promise<ContactRow[]> {
    return this.#creation.lockContacts(t, business, contacts);
  }

  /** create.ts contactsByName: contactFor for a bulk import's chunk of named contacts. */
  contactsByName(
    t: Trx,
    business: BusinessRow,
    named: readonly { name: string; phone: string | null }[],
  ): Promise<{ contact: ContactRow; created: boolean }[]> {
    return this.#creation.contactsByName(t, business, named);
  }

  /** create.ts insertMany: writes checked create bodies whose contacts are resolved. */
  insertMany(
    t: Executor,
    business: BusinessRow,
    items: readonly { input: CreateTransactionInput; contact: ContactRow }[],
  ): Promise<repo.TransactionView[]> {
    return this.#creation.insertMany(t, business, items);
  }

  /** Settles new dues from their contacts' credit (a bulk import's, after its deferred totals). */
  useCredit(t: Executor, business: BusinessRow, written: readonly { id: string; contact_id: string }[]) {
    return this.#creation.useCredit(t, business, written);
  }

  /** Totals for writePrepared to add to, over several calls (new-due.ts DeferredTotals). */
  deferTotals(): DeferredTotals {
    return this.#creation.deferTotals();
  }

  /** The dues one request may still write, shared by writePrepared calls (series.ts DueBudget). */
  dueBudget(): DueBudget {
    return this.#creation.dueBudget();
  }

  /** create.ts prepareMany: insertMany's rows built and not yet written. */
  prepareMany(business: BusinessRow, items: readonly { input: CreateTransactionInput; contact: ContactRow }[]) {
    return this.#creation.prepareMany(business, items);
  }

  /** Of written dues, those whose contact held credit when read (prepareMany): to settle from it. */
  creditCandidates(prepared: PreparedDues, rows: readonly repo.TransactionView[]) {
    return this.#creation.creditCandidates(prepared, rows);
  }

  /** create.ts writePrepared: writes prepareMany's rows, their totals deferred with `totals`. */
  writePrepared(
    t: Executor,
    business: BusinessRow,
    prepared: PreparedDues,
    totals?: DeferredTotals,
    budget?: DueBudget,
  ): Promise<repo.TransactionView[]> {
    return this.#creation.writePrepared(t, business, prepared, totals, budget);
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

  /** list.ts list: a page of the business's dues with its total. */
  list(
    business: BusinessRow,
    query: ListTransactionsInput,
    more: { dueFrom?: string; dueTo?: string; fuzzyContactName?: string } = {},
    today: string = this.today(business),
  ) {
    return this.#list.list(business, query, more, today);
  }

  /** list.ts listBatchAs: the bulk export's batches, each as `selection` makes it. */
  listBatchAs<R>(
    selection: repo.ListSelection,
    business: BusinessRow,
    query: Pick<ListTransactionsInput, 'status' | 'contact_id' | 'since' | 'include_deleted'>,
    after: repo.ListPosition | undefined,
    limit: number,
    today: string,
    publicBaseUrl: string,
  ): Promise<R[]> {
    return this.#list.listBatchAs<R>(selection, business, query, after, limit, today, publicBaseUrl);
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
    return repo.oldestOpenDueOfContact(this.deps.db, business.id, contactId);
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
  repeatArrived(limit = 500): Promise<number> {
    return repeatArrived(this.deps.db, this.deps.clock.now(), limit);
  }
}
