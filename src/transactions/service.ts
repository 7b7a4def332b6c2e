import type { BusinessRow } from '../businesses/repository.js';
import { fuzzyQuery } from '../contacts/fuzzy.js';
import type { ContactRow } from '../contacts/repository.js';
import { findContact } from '../contacts/repository.js';
import { type ContactService, checkContactName, parsePhone } from '../contacts/service.js';
import type { Db, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { localDate, localMonth } from '../lib/dates.js';
import { timeOrderedToken, uuidv7 } from '../lib/ids.js';
import { recordEvent } from '../outbox/events.js';
import { cancelForPaidDue, scheduleForNewDue } from '../reminders/schedule.js';
import * as aggregates from '../summary/aggregates.js';
import { transactionEventData } from './presenter.js';
import * as repo from './repository.js';
import type { CreateTransactionInput, ListTransactionsInput, MarkPaidInput } from './schema.js';

export class TransactionService {
  constructor(private readonly deps: { db: Db; clock: Clock; contacts: ContactService }) {}

  today(business: BusinessRow): string {
    return localDate(business.timezone, this.deps.clock.now());
  }

  /**
   * Creates a due (PRODUCT part 3): the contact is taken by id or found/created by name, the
   * totals and the transaction.created event are written in the same database transaction.
   */
  async create(
    business: BusinessRow,
    input: CreateTransactionInput,
    trx?: Trx,
  ): Promise<{ transaction: repo.TransactionView; contactCreated: boolean }> {
    if (input.contact_id !== undefined && input.contact_name !== undefined) {
      throw errors.invalid('contact_id', 'give only one of contact_id or contact_name');
    }
    if (input.contact_id === undefined && input.contact_name === undefined) {
      throw errors.invalid('contact_name', 'one of contact_id or contact_name is required');
    }
    const name = input.contact_name === undefined ? undefined : checkContactName(input.contact_name, 'contact_name');
    const phone = input.contact_phone === undefined ? null : parsePhone(input.contact_phone, business, 'contact_phone');

    const work = async (t: Trx) => {
      let contact: ContactRow;
      let contactCreated = false;
      if (input.contact_id !== undefined) {
        const found = await findContact(t, business.id, input.contact_id);
        if (!found) throw errors.unprocessable('contact_id does not match a contact of this business', 'contact_id');
        contact = await this.deps.contacts.fillPhone(t, found, phone);
      } else {
        ({ contact, created: contactCreated } = await this.deps.contacts.findOrCreate(
          t,
          business,
          name as string,
          phone,
        ));
      }
      const now = this.deps.clock.now();
      const row: repo.TransactionRow = {
        id: uuidv7(now.getTime()),
        business_id: business.id,
        contact_id: contact.id,
        amount_paise: input.amount_paise,
        currency: business.currency,
        status: 'pending',
        open: 1,
        direction: 'receivable',
        due_date: input.due_date,
        paid_at: null,
        utr: null,
        payment_method: null,
        invoice_number: input.invoice_number ?? null,
        notes: input.notes ?? null,
        reminder_count: 0,
        claim_count: 0,
        pay_token: timeOrderedToken(now.getTime()),
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      await repo.insertTransaction(t, row);
      await aggregates.addPendingDue(t, business.id, row.due_date, row.amount_paise);
      await scheduleForNewDue(t, business, row, now);
      const view: repo.TransactionView = {
        ...row,
        contact_name: contact.name,
        contact_phone: contact.phone,
      };
      await recordEvent(t, {
        businessId: business.id,
        type: 'transaction.created',
        data: transactionEventData(view, this.today(business)),
        at: now,
      });
      return { transaction: view, contactCreated };
    };
    return trx ? work(trx) : this.deps.db.transaction().execute(work);
  }

  async get(business: BusinessRow, id: string): Promise<repo.TransactionView> {
    const row = await repo.findTransaction(this.deps.db, business.id, id);
    if (!row) throw errors.notFound('transaction');
    return row;
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
    const filter: repo.TransactionFilter = {
      status: query.status as repo.TransactionFilter['status'],
      contactId: query.contact_id,
      since: query.since === undefined ? undefined : new Date(query.since).toISOString(),
      dueFrom: more.dueFrom,
      dueTo: more.dueTo,
      contactName: more.fuzzyContactName === undefined ? undefined : (fuzzyQuery(more.fuzzyContactName) ?? undefined),
      today,
    };
    const onlyStatus =
      filter.contactId === undefined &&
      filter.since === undefined &&
      filter.dueFrom === undefined &&
      filter.dueTo === undefined &&
      filter.contactName === undefined;
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const db = this.deps.db;
    const [rows, total] = await Promise.all([
      repo.listTransactions(db, business.id, filter, limit, offset),
      onlyStatus ? this.countFromTotals(business, filter) : repo.countTransactions(db, business.id, filter),
    ]);
    return { rows, total, limit, offset };
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
   * Marks a due paid. The update is conditional on the status it was read with, so of many
   * concurrent calls exactly one succeeds (and emits one transaction.paid); the rest get 409.
   */
  async markPaid(business: BusinessRow, id: string, input: MarkPaidInput): Promise<repo.TransactionView> {
    return this.deps.db.transaction().execute(async (trx) => {
      const now = this.deps.clock.now();
      const paid = {
        paid_at: now.toISOString(),
        utr: input.utr ?? null,
        payment_method: input.payment_method ?? 'api',
      };
      // A concurrent sweep can move pending -> overdue between our read and our update; read again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const current = await repo.findTransaction(trx, business.id, id);
        if (!current) throw errors.notFound('transaction');
        if (current.status === 'paid') throw errors.conflict('transaction is already paid');
        const updated = await repo.markPaidIfStatus(trx, business.id, id, current.status, paid);
        if (!updated) continue;
        await aggregates.markDuePaid(trx, {
          businessId: business.id,
          fromStatus: current.status as 'pending' | 'overdue',
          dueDate: current.due_date,
          paise: Number(current.amount_paise),
          paidMonth: localMonth(business.timezone, now),
        });
        await cancelForPaidDue(trx, id, now);
        const view: repo.TransactionView = {
          ...current,
          ...paid,
          status: 'paid',
          open: 0,
          updated_at: paid.paid_at,
        };
        await recordEvent(trx, {
          businessId: business.id,
          type: 'transaction.paid',
          data: {
            id: view.id,
            contactName: view.contact_name,
            amountPaise: Number(view.amount_paise),
            paidAt: paid.paid_at,
            paymentRef: paid.utr,
            paymentMethod: paid.payment_method,
          },
          at: now,
        });
        return view;
      }
      throw errors.conflict('transaction changed while it was being marked paid; retry');
    });
  }
}
