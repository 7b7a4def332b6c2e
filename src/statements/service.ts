import type { BusinessRow } from '../businesses/repository.js';
import { findContact } from '../contacts/repository.js';
import { readTogether } from '../db/port.js';
import type { Db } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { addDays, instantAt, isCalendarDate, localDate } from '../lib/dates.js';
import * as repo from './repository.js';
import {
  agingOf,
  buildStatement,
  defaultFrom,
  EVERY_MONTH,
  latestEntries,
  type StatementItem,
  statementReads,
} from './statement.js';

const MAX_DATE = '9999-12-31';

export class StatementService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /**
   * The statement of a contact's account over [from, to] (business-local dates): the opening
   * balance from the contact's kept months (contact_ledger_months) and the entries of `from`'s
   * month on the nearer side of the period (statement.ts statementReads), then the period's
   * entries; O(months + entries in the period and half a month), however long the history. The
   * contact, its months and the rows are read as of one moment (readTogether), locking nothing.
   */
  async get(business: BusinessRow, contactId: string, query: { from?: string | undefined; to?: string | undefined }) {
    const today = localDate(business.timezone, this.deps.clock.now());
    for (const field of ['from', 'to'] as const) {
      const v = query[field];
      if (v !== undefined && !isCalendarDate(v)) throw errors.invalid(field, `${field} must be a date YYYY-MM-DD`);
    }
    const to = query.to ?? today;
    const from = query.from ?? defaultFrom(to);
    if (from > to) throw errors.invalid('from', 'from must not be after to');
    const tz = business.timezone;
    const fromInstant = instantAt(tz, from, 0).toISOString();
    // The day after 9999-12-31 has no ISO text of four digits: nothing is recorded that late.
    const untilInstant = to < MAX_DATE ? instantAt(tz, addDays(to, 1), 0).toISOString() : `${MAX_DATE}T23:59:59.999Z`;
    const reads = statementReads(from, to, fromInstant, untilInstant);
    const { since, until } = reads;
    return readTogether(this.deps.db, async (trx) => {
      const contact = await findContact(trx, business.id, contactId);
      if (!contact) throw errors.notFound('contact');
      const [before, dues, receipts, reversals, adjustments, open] = [
        await repo.keptMonths(trx, contactId, reads.months),
        await repo.duesBetween(trx, contactId, since.instant, until.instant),
        await repo.receiptsReceivedBetween(trx, contactId, since.date, until.date),
        await repo.reversalsBetween(trx, contactId, since.instant, until.instant),
        await repo.adjustmentsBetween(trx, contactId, since.instant, until.instant),
        await repo.openDaysOf(trx, contactId),
      ];
      const items = itemsOf(tz, { dues, receipts, reversals, adjustments });
      const statement = buildStatement(before, reads.months, items, from, to);
      const aging = agingOf(
        open.map((d) => ({ dueDate: d.day, count: Number(d.due_count), balancePaise: Number(d.balance_paise) })),
        today,
      );
      return { contact, from, to, statement, aging };
    });
  }

  /**
   * A contact's newest `count` entries whatever their dates, newest first, each with the balance
   * after it (statement.ts latestEntries): the sum of its kept months (O(months)) and each kind's
   * newest `count + 1` entries (O(count)), however long the history. Read as of one moment, as
   * `get` is.
   */
  async latest(business: BusinessRow, contactId: string, count: number) {
    return readTogether(this.deps.db, async (trx) => {
      const contact = await findContact(trx, business.id, contactId);
      if (!contact) throw errors.notFound('contact');
      const read = count + 1;
      const [balance, dues, receipts, reversals, adjustments] = [
        await repo.keptMonths(trx, contactId, EVERY_MONTH),
        await repo.newestDues(trx, contactId, read),
        await repo.newestReceipts(trx, contactId, read),
        await repo.newestReversals(trx, contactId, read),
        await repo.newestAdjustments(trx, contactId, read),
      ];
      const items = itemsOf(business.timezone, { dues, receipts, reversals, adjustments });
      return { contact, ...latestEntries(balance, items, count) };
    });
  }
}

/**
 * The rows a statement reads as its items: each kind on its own date (a due, an adjustment and a
 * reversal on the business-local date of their instant, a receipt on its received_on), in English
 * for the API's `description`, with the detail a page words in its own language.
 */
function itemsOf(
  timezone: string,
  rows: {
    dues: readonly repo.DueEntryRow[];
    receipts: readonly repo.ReceiptEntryRow[];
    reversals: readonly repo.ReversalEntryRow[];
    adjustments: readonly repo.AdjustmentEntryRow[];
  },
): StatementItem[] {
  const local = (at: string) => localDate(timezone, new Date(at));
  return [
    ...rows.dues.map((d) => ({
      date: local(d.created_at),
      at: d.created_at,
      id: d.id,
      kind: 'due' as const,
      transactionId: d.id,
      receiptId: null,
      description: `${d.invoice_number === null ? 'Due' : `Invoice ${d.invoice_number}`}, due ${d.due_date}`,
      debitPaise: Number(d.amount_paise),
      creditPaise: 0,
      detail: { invoiceNumber: d.invoice_number, dueDate: d.due_date },
    })),
    ...rows.receipts.map((r) => ({
      date: r.received_on,
      at: r.created_at,
      id: r.id,
      kind: 'payment' as const,
      transactionId: null,
      receiptId: r.id,
      description: `Payment (${r.payment_method})${r.utr === null ? '' : ` ${r.utr}`}`,
      debitPaise: 0,
      creditPaise: Number(r.amount_paise),
      detail: { method: r.payment_method, utr: r.utr, reversed: r.reversed_at !== null },
    })),
    ...rows.reversals.map((r) => ({
      date: local(r.reversed_at as string),
      at: r.reversed_at as string,
      id: r.id,
      kind: 'reversal' as const,
      transactionId: null,
      receiptId: r.id,
      description: `Payment reversed${r.reversal_reason === null ? '' : `: ${r.reversal_reason}`}`,
      debitPaise: Number(r.amount_paise),
      creditPaise: 0,
      detail: { reason: r.reversal_reason },
    })),
    ...rows.adjustments.map((a) => ({
      date: local(a.created_at),
      at: a.created_at,
      id: a.id,
      kind: 'adjustment' as const,
      transactionId: a.transaction_id,
      receiptId: null,
      description: `Adjustment (${a.kind})${a.reason === null ? '' : `: ${a.reason}`}`,
      debitPaise: 0,
      creditPaise: Number(a.amount_paise),
      detail: { adjustmentKind: a.kind, reason: a.reason },
    })),
  ];
}
