import type { BusinessRow } from '../businesses/repository.js';
import { cache } from '../cache/cache.js';
import type { ContactRow } from '../contacts/repository.js';
import { findContact } from '../contacts/repository.js';
import { type ContactService, checkContactName, parsePhone } from '../contacts/service.js';
import { writesDueAlone } from '../db/port.js';
import type { Db, Executor, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Answer, IdempotencyStore, Idempotent } from '../idempotency/store.js';
import type { Clock } from '../lib/clock.js';
import { localDate } from '../lib/dates.js';
import { useCreditIn } from './account.js';
import { type Recurrence, storeRecurrence } from './domain.js';
import {
  DeferredTotals,
  insertDueForContact,
  type NewDue,
  type PreparedDues,
  prepareDues,
  writeDues,
} from './new-due.js';
import { lockContacts as lockContactRows } from './receipt-repository.js';
import type * as repo from './repository.js';
import type { CreateTransactionInput } from './schema.js';
import { checkSeriesStart, DueBudget, extendSeries } from './series.js';

/** How many contacts createAlone keeps (read once, then checked by the create's own statement). */
const CONTACTS_KEPT = 10_000;

/** createAlone's kept contacts have no version: its statement checks the contact itself. */
const CONTACT_VERSION = 0;

/** Contacts locked per statement by lockContacts (an import's may be 10,000). */
const CONTACTS_PER_LOCK = 1000;

export interface CreatedTransaction {
  transaction: repo.TransactionView;
  contactCreated: boolean;
}

/**
 * Creating dues (PRODUCT part 3): one create (its own transaction, or the caller's), or a bulk
 * import's chunks, each with its contact found or created and locked, its totals, events, series
 * and credit. TransactionService offers each of these methods.
 */
export class DueCreation {
  /** createAlone's contacts, by business and id, as last read (or written with a due): cache/cache.ts `contacts` */
  readonly #contacts = cache.byCount<ContactRow>(CONTACTS_KEPT);

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      contacts: ContactService;
      idempotency: IdempotencyStore;
    },
  ) {}

  private today(business: BusinessRow): string {
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
    let contact = this.#contacts.get(key, CONTACT_VERSION);
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
        this.#contacts.set(key, CONTACT_VERSION, contact);
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
}
