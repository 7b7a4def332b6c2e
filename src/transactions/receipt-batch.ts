import { type AuditChange, recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import { addSettledDues } from '../contacts/score-sums.js';
import { insertRows } from '../db/insert-rows.js';
import type { Executor, PaymentTable, ReceiptTable } from '../db/schema.js';
import type { TotalsDeltas } from '../db/totals-deltas.js';
import { errors } from '../errors.js';
import { localMonth } from '../lib/dates.js';
import { type OutboxEvent, recordEvents } from '../outbox/events.js';
import { cancelForPaidDues } from '../reminder-schedule/schedule.js';
import * as aggregates from '../totals/aggregates.js';
import type { ReceiptInput } from './account.js';
import { type Allocation, planReceipt } from './allocate.js';
import { receiptRecordedEntries } from './audit.js';
import { balanceOf } from './domain.js';
import { newReceipt, planAllocation } from './payments.js';
import * as repo from './receipt-repository.js';
import * as dues from './repository.js';

/**
 * Many receipts of one business recorded in the caller's database transaction as one batch (a bank
 * statement's chunk of matched lines): the same rows, totals, events, reminders and audit entries as recording
 * each with account.ts's recordReceiptIn, in the same order, but computed in memory and written
 * together when the batch is written: the receipts and their payments in multi-row inserts, the
 * changed dues in one UPDATE per 100, the totals' deltas summed, the events in one insert. The contacts and dues it
 * reads are locked (PostgreSQL: contacts before dues, each in id order) and kept as the batch
 * changes them, so a later receipt sees an earlier one's payments before anything is written.
 *
 * Cost: a few statements per batch, plus one per contact whose open dues a receipt walks (a page of
 * 100, oldest first, as recordReceiptIn), per contact left credit, and per contact whose dues
 * settled (its score sums; the settled dues' reminders are cancelled together).
 */

/** Open dues read per statement while looking for where a receipt goes (as account.ts). */
const OPEN_DUES_PAGE = 100;

/** A contact's open dues oldest first, as far as they have been read. */
interface OpenDues {
  ids: string[];
  /** every open due of the contact has been read */
  done: boolean;
  last?: dues.TransactionView;
}

export class ReceiptBatch {
  private readonly dues = new Map<string, dues.TransactionView>();
  private readonly contacts = new Set<string>();
  private readonly openDues = new Map<string, OpenDues>();
  private receipts: ReceiptTable[] = [];
  private payments: PaymentTable[] = [];
  /** dues changed by the batch, as they end */
  private changed = new Map<string, dues.TransactionView>();
  private settled: dues.TransactionView[] = [];
  private events: OutboxEvent[] = [];
  private deltas: TotalsDeltas[] = [];
  /** credit left to each contact */
  private credit = new Map<string, number>();
  /** each receipt's audit entries, then those of the dues it paid (as recordReceiptIn writes them) */
  private audit: AuditChange[] = [];

  constructor(
    private readonly trx: Executor,
    private readonly business: BusinessRow,
    private readonly now: Date,
  ) {}

  /** Locks these contacts, then these dues (their contacts among the first), each set in id order, at once. */
  async lock(contactIds: readonly string[], dueIds: readonly string[]): Promise<void> {
    const newContacts = [...new Set(contactIds)].filter((id) => !this.contacts.has(id));
    for (const c of await repo.lockContacts(this.trx, this.business.id, newContacts)) this.contacts.add(c.id);
    const newDues = [...new Set(dueIds)].filter((id) => !this.dues.has(id));
    for (const d of await dues.lockTransactions(this.trx, this.business.id, newDues)) {
      if (this.contacts.has(d.contact_id)) this.dues.set(d.id, d);
    }
  }

  /** A due of the business as the batch has left it (locked), or undefined when there is none. */
  async due(id: string): Promise<dues.TransactionView | undefined> {
    const kept = this.dues.get(id);
    if (kept) return kept;
    // lockTransaction takes the contact, then the due: recordReceiptIn's lock order.
    const row = await dues.lockTransaction(this.trx, this.business.id, id);
    if (row) {
      this.contacts.add(row.contact_id);
      this.dues.set(id, row);
    }
    return row;
  }

  /**
   * Records money received from a contact as recordReceiptIn does: the explicit allocations (each
   * within its due's balance as the batch has left it: the caller checks), then the contact's
   * open dues oldest first, the rest as credit. Returns the receipt.
   */
  async record(contactId: string, input: ReceiptInput): Promise<ReceiptTable> {
    if (!this.contacts.has(contactId)) {
      const contact = await repo.lockContact(this.trx, this.business.id, contactId);
      if (!contact) throw errors.notFound('contact');
      this.contacts.add(contactId);
    }
    const explicit: readonly Allocation[] = input.allocations ?? [];
    const oldestFirst = await this.oldestFirst(
      contactId,
      input.amountPaise - explicit.reduce((s, a) => s + a.amountPaise, 0),
      explicit,
    );
    const plan = planReceipt(input.amountPaise, explicit, oldestFirst);
    const receipt: ReceiptTable = {
      ...newReceipt(this.business, contactId, input, this.now),
      applied_paise: plan.appliedPaise,
      credit_paise: plan.creditPaise,
    };
    this.receipts.push(receipt);
    const paid: { before: dues.TransactionView; after: dues.TransactionView }[] = [];
    for (const a of plan.allocations) {
      const before = this.dues.get(a.transactionId) as dues.TransactionView;
      paid.push({ before, after: this.pay(before, a.amountPaise, receipt, input) });
    }
    this.audit.push(...receiptRecordedEntries(receipt, paid));
    if (plan.creditPaise > 0) {
      this.credit.set(contactId, (this.credit.get(contactId) ?? 0) + plan.creditPaise);
      this.deltas.push({ totals: { credit_paise: plan.creditPaise } });
      this.deltas.push({
        totals: {},
        paidMonth: { month: localMonth(this.business.timezone, this.now), count: 0, paise: plan.creditPaise },
      });
    }
    return receipt;
  }

  /**
   * The contact's open dues oldest first with their balances as the batch has left them, read a
   * page at a time until `left` is placed (as recordReceiptIn reads them).
   */
  private async oldestFirst(contactId: string, left: number, explicit: readonly Allocation[]) {
    let open = this.openDues.get(contactId);
    if (!open) {
      open = { ids: [], done: false };
      this.openDues.set(contactId, open);
    }
    const out: { id: string; balancePaise: number }[] = [];
    let i = 0;
    while (left > 0) {
      if (i === open.ids.length) {
        if (open.done) break;
        const page = await dues.lockOpenDuesOfContact(this.trx, this.business.id, contactId, OPEN_DUES_PAGE, open.last);
        for (const row of page) {
          if (!this.dues.has(row.id)) this.dues.set(row.id, row);
          open.ids.push(row.id);
        }
        open.last = page[page.length - 1] ?? open.last;
        if (page.length < OPEN_DUES_PAGE) open.done = true;
        continue;
      }
      const due = this.dues.get(open.ids[i++] as string) as dues.TransactionView;
      const balance = due.open === 1 && due.deleted_at === null ? balanceOf(due) : 0;
      const room = balance - (explicit.find((a) => a.transactionId === due.id)?.amountPaise ?? 0);
      out.push({ id: due.id, balancePaise: balance });
      left -= Math.min(Math.max(room, 0), left);
    }
    return out;
  }

  /** One allocation on a due (payments.ts planAllocation), kept to be written with the batch. */
  private pay(
    current: dues.TransactionView,
    paise: number,
    receipt: ReceiptTable,
    input: ReceiptInput,
  ): dues.TransactionView {
    const plan = planAllocation(
      this.business,
      current,
      { ...input, amountPaise: paise, receiptId: receipt.id, money: true },
      this.now,
    );
    this.payments.push(plan.payment);
    this.dues.set(current.id, plan.transaction);
    this.changed.set(current.id, plan.transaction);
    this.deltas.push(plan.deltas);
    if (plan.settles) this.settled.push(plan.transaction);
    this.events.push(...plan.events);
    return plan.transaction;
  }

  /**
   * Writes what the batch recorded, in the caller's transaction, and starts it afresh (the rows
   * it kept are read again by the next receipt: another writer in this transaction may change them).
   */
  async write(): Promise<void> {
    const { trx, business, now } = this;
    // Multi-row INSERTs: on SQLite, a prepared single-row INSERT per receipt (the port's
    // insertEach) took 8 ms a receipt inside a long upload (18 s of 24 for 4,000 lines), these 0.1.
    await insertRows(trx, 'receipts', this.receipts);
    await insertRows(trx, 'payments', this.payments);
    await dues.updatePaidColumns(trx, business.id, [...this.changed.values()]);
    for (const [contactId, paise] of this.credit) {
      await repo.addContactCredit(trx, contactId, paise, now.toISOString());
    }
    await aggregates.applyAll(trx, business.id, this.deltas);
    await addSettledDues(trx, business, this.settled, now);
    await cancelForPaidDues(
      trx,
      this.settled.map((d) => d.id),
      now,
    );
    await recordEvents(trx, this.events);
    await recordAudit(trx, business.id, now, this.audit);
    this.dues.clear();
    this.contacts.clear();
    this.openDues.clear();
    this.receipts = [];
    this.payments = [];
    this.changed = new Map();
    this.settled = [];
    this.events = [];
    this.deltas = [];
    this.credit = new Map();
    this.audit = [];
  }
}
