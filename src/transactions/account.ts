import { type AuditChange, recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import { removeSettledDue } from '../contacts/score-sums.js';
import type { Executor, PaymentTable, ReceiptTable } from '../db/schema.js';
import { nextUpdatedAt } from '../db/updated-at.js';
import { errors } from '../errors.js';
import { localDate, localMonth } from '../lib/dates.js';
import { recordEvent } from '../outbox/events.js';
import { rescheduleSequence } from '../reminder-schedule/schedule.js';
import * as aggregates from '../totals/aggregates.js';
import { type Allocation, AllocationError, checkExplicit, planCreditUse, planReceipt } from './allocate.js';
import { dueEntry, duePaidEntry, receiptEntry, receiptRecordedEntries } from './audit.js';
import { balanceOf, storedOpenStatus } from './domain.js';
import { applyToDue, newReceipt, type PaymentInput } from './payments.js';
import { transactionEventData } from './presenter.js';
import * as repo from './receipt-repository.js';
import * as dues from './repository.js';

/**
 * A buyer's account in the caller's database transaction: receipts allocated to dues, credit used
 * by new or reopened dues, and reversals. The plans come from allocate.ts (pure); this module
 * reads the rows they need (locked) and writes what they decide, with the totals, the events and
 * the audit entries (audit.ts).
 */

export interface ReceiptInput extends PaymentInput {
  receivedOn?: string | undefined;
  allocations?: readonly Allocation[] | undefined;
}

export interface RecordedReceipt {
  receipt: ReceiptTable;
  allocations: PaymentTable[];
  /** every due the receipt changed, as changed */
  transactions: dues.TransactionView[];
}

/** Open dues read per statement while looking for where a receipt goes. */
const OPEN_DUES_PAGE = 100;

/**
 * Records money received from a contact (one receipt): the explicit allocations first, then the
 * open dues oldest first, the rest as credit. The contact is locked first, so receipts and
 * reversals of one contact run one after another and never apply the same balance twice. Cost:
 * the dues it touches (read a page at a time, stopping once the money is placed).
 */
export async function recordReceiptIn(
  trx: Executor,
  business: BusinessRow,
  contactId: string,
  input: ReceiptInput,
  now: Date,
): Promise<RecordedReceipt> {
  const contact = await repo.lockContact(trx, business.id, contactId);
  if (!contact) throw errors.notFound('contact');
  const explicit = input.allocations ?? [];
  const explicitRows = await dues.lockTransactions(
    trx,
    business.id,
    explicit.map((a) => a.transactionId),
  );
  const rows = new Map(explicitRows.map((r) => [r.id, r]));
  try {
    checkExplicit(
      input.amountPaise,
      contactId,
      explicit,
      new Map(
        explicitRows.map((r) => [
          r.id,
          {
            id: r.id,
            contactId: r.contact_id,
            open: r.open === 1 && r.deleted_at === null,
            balancePaise: balanceOf(r),
          },
        ]),
      ),
    );
  } catch (error) {
    if (error instanceof AllocationError) throw errors.invalid('allocations', error.message);
    throw error;
  }
  let left = input.amountPaise - explicit.reduce((s, a) => s + a.amountPaise, 0);
  const oldestFirst: { id: string; balancePaise: number }[] = [];
  let after: dues.TransactionView | undefined;
  while (left > 0) {
    const page = await dues.lockOpenDuesOfContact(trx, business.id, contactId, OPEN_DUES_PAGE, after);
    for (const row of page) {
      rows.set(row.id, row);
      const room = balanceOf(row) - (explicit.find((a) => a.transactionId === row.id)?.amountPaise ?? 0);
      oldestFirst.push({ id: row.id, balancePaise: balanceOf(row) });
      left -= Math.min(Math.max(room, 0), left);
    }
    if (page.length < OPEN_DUES_PAGE) break;
    after = page[page.length - 1];
  }
  const plan = planReceipt(input.amountPaise, explicit, oldestFirst);
  const receipt: ReceiptTable = {
    ...newReceipt(business, contactId, input, now),
    applied_paise: plan.appliedPaise,
    credit_paise: plan.creditPaise,
  };
  await repo.insertReceipt(trx, receipt);
  const allocations: PaymentTable[] = [];
  const changed: dues.TransactionView[] = [];
  const paid: { before: dues.TransactionView; after: dues.TransactionView }[] = [];
  for (const a of plan.allocations) {
    const due = rows.get(a.transactionId) as dues.TransactionView;
    const recorded = await applyToDue(
      trx,
      business,
      due,
      { ...input, amountPaise: a.amountPaise, receiptId: receipt.id, money: true },
      now,
    );
    allocations.push(recorded.payment);
    changed.push(recorded.transaction);
    paid.push({ before: due, after: recorded.transaction });
  }
  if (plan.creditPaise > 0) {
    await moveCredit(trx, business, contactId, plan.creditPaise, now);
    await aggregates.addMonthMoney(trx, business.id, localMonth(business.timezone, now), plan.creditPaise);
  }
  await recordAudit(trx, business.id, now, receiptRecordedEntries(receipt, paid));
  return { receipt, allocations, transactions: changed };
}

/**
 * Settles open dues from their contacts' credit, as far as it goes (new dues of any source, and
 * dues a reversal reopened): a payment with source `credit` per use, an allocation of the receipt
 * that held the credit (oldest receipt first), not new money. Returns the dues as changed.
 */
export async function useCreditIn(
  trx: Executor,
  business: BusinessRow,
  open: readonly { id: string; contact_id: string }[],
  now: Date,
): Promise<Map<string, dues.TransactionView>> {
  const changed = new Map<string, dues.TransactionView>();
  const audit: AuditChange[] = [];
  const contactIds = [...new Set(open.map((d) => d.contact_id))];
  // Every contact locked (id order) before its credit is read: a receipt of one of them that is
  // leaving credit right now is waited for, and its credit seen.
  const locked = await repo.lockContacts(trx, business.id, contactIds);
  for (const contact of locked.filter((c) => Number(c.credit_paise) > 0)) {
    const credits = (await repo.lockCreditReceipts(trx, contact.id)).map((r) => ({
      receiptId: r.id,
      creditPaise: Number(r.credit_paise),
      appliedPaise: Number(r.applied_paise),
      utr: r.utr,
      method: r.payment_method,
      applied: 0,
    }));
    const theirs = open.filter((d) => d.contact_id === contact.id);
    for (const first of theirs) {
      // A due of a batch may be read before a later one's credit use: take its latest state.
      const due = (await dues.lockTransaction(trx, business.id, first.id)) as dues.TransactionView;
      if (due.open !== 1) continue;
      let current = due;
      for (const use of planCreditUse(
        balanceOf(due),
        credits.map((c) => ({ receiptId: c.receiptId, creditPaise: c.creditPaise })),
      )) {
        const credit = credits.find((c) => c.receiptId === use.receiptId) as (typeof credits)[number];
        const recorded = await applyToDue(
          trx,
          business,
          current,
          {
            amountPaise: use.amountPaise,
            utr: credit.utr,
            paymentMethod: credit.method,
            source: 'credit',
            receiptId: use.receiptId,
            money: false,
          },
          now,
        );
        current = recorded.transaction;
        credit.creditPaise -= use.amountPaise;
        credit.applied += use.amountPaise;
      }
      if (current !== due) audit.push(duePaidEntry(due, current));
      changed.set(current.id, current);
    }
    const used = credits.reduce((sum, c) => sum + c.applied, 0);
    if (used > 0) await moveCredit(trx, business, contact.id, -used, now);
    for (const c of credits) {
      if (c.applied === 0) continue;
      audit.push(
        receiptEntry(
          'applied',
          { id: c.receiptId, applied_paise: c.appliedPaise, credit_paise: c.creditPaise + c.applied },
          { id: c.receiptId, applied_paise: c.appliedPaise + c.applied, credit_paise: c.creditPaise },
        ),
      );
      await trx
        .updateTable('receipts')
        .set((eb) => ({
          applied_paise: eb('applied_paise', '+', c.applied),
          credit_paise: eb('credit_paise', '-', c.applied),
        }))
        .where('id', '=', c.receiptId)
        .execute();
    }
  }
  await recordAudit(trx, business.id, now, audit);
  return changed;
}

/**
 * Reverses a receipt (entered by mistake, a bounced cheque): every allocation is taken back from
 * its due (a settled due reopens, pending or overdue by its date), its credit is taken back, this
 * month's money and the totals follow, `transaction.updated` per due. Refused (409) when reversed
 * already, or when a later due used its credit. Dues reopened are then settled from other credit
 * the contact holds, if any.
 */
export async function reverseReceiptIn(
  trx: Executor,
  business: BusinessRow,
  receiptId: string,
  reason: string,
  now: Date,
): Promise<{ receipt: ReceiptTable; allocations: PaymentTable[] }> {
  const found = await repo.findReceipt(trx, business.id, receiptId);
  if (!found) throw errors.notFound('payment');
  // The contact first, then the receipt: the lock order of recording a receipt.
  await repo.lockContact(trx, business.id, found.contact_id);
  const receipt = (await repo.findReceipt(trx, business.id, receiptId, true)) as ReceiptTable;
  if (receipt.reversed_at !== null) throw errors.conflict('payment is already reversed');
  const allocations = await repo.allocationsOf(trx, [receipt.id]);
  const creditUse = allocations.find((a) => a.source === 'credit' && a.reversed_at === null);
  if (creditUse) {
    throw errors.conflict(
      `this payment's credit was used by the due ${creditUse.transaction_id}: reverse that first`,
      'transaction_id',
    );
  }
  const at = now.toISOString();
  const today = localDate(business.timezone, now);
  const locked = await dues.lockTransactions(
    trx,
    business.id,
    allocations.map((a) => a.transaction_id),
  );
  const byId = new Map(locked.map((d) => [d.id, d]));
  const audit: AuditChange[] = [];
  for (const a of allocations) {
    const due = byId.get(a.transaction_id) as dues.TransactionView;
    const wasPaid = due.open === 0;
    const paise = Number(a.amount_paise);
    const status = wasPaid ? storedOpenStatus(due.due_date, today) : (due.status as 'pending' | 'overdue');
    const change: Partial<dues.StoredTransaction> = {
      amount_paid_paise: Number(due.amount_paid_paise) - paise,
      updated_at: nextUpdatedAt(due.updated_at, now),
      ...(wasPaid && { status, open: 1, paid_at: null, utr: null, payment_method: null }),
    };
    if (wasPaid) {
      await aggregates.removePaidDue(trx, business.id, Number(due.amount_paise));
      if (due.paid_at !== null) await removeSettledDue(trx, business, due, due.paid_at);
    } else {
      await aggregates.removeOpenDue(trx, business.id, {
        status,
        dueDate: due.due_date,
        balancePaise: balanceOf(due),
      });
    }
    await aggregates.addOpenDue(trx, business.id, {
      status,
      dueDate: due.due_date,
      balancePaise: balanceOf(due) + paise,
    });
    await dues.updateTransaction(trx, business.id, due.id, change);
    const after = { ...due, ...change } as dues.TransactionView;
    audit.push(dueEntry('payment_reversed', due, after));
    // Reopened: its reminder sequence comes back, as for a due whose date moved (the steps still
    // ahead; none while the due or its contact is paused).
    if (wasPaid && after.reminders_paused !== 1) await rescheduleSequence(trx, business, after, now);
    byId.set(due.id, after);
  }
  await trx.updateTable('payments').set({ reversed_at: at }).where('receipt_id', '=', receipt.id).execute();
  // The money leaves the month it was counted in (allocations and credit alike).
  await aggregates.addMonthMoney(
    trx,
    business.id,
    localMonth(business.timezone, new Date(receipt.created_at)),
    -Number(receipt.amount_paise),
  );
  if (Number(receipt.credit_paise) > 0)
    await moveCredit(trx, business, receipt.contact_id, -Number(receipt.credit_paise), now);
  const reversed = { ...receipt, credit_paise: 0, reversed_at: at, reversal_reason: reason };
  await repo.updateReceipt(trx, receipt.id, { credit_paise: 0, reversed_at: at, reversal_reason: reason });
  await recordAudit(trx, business.id, now, [receiptEntry('reversed', receipt, reversed), ...audit]);
  for (const due of byId.values()) {
    await recordEvent(trx, {
      businessId: business.id,
      type: 'transaction.updated',
      data: transactionEventData(due, today),
      at: now,
    });
  }
  await useCreditIn(trx, business, [...byId.values()], now);
  return { receipt: reversed, allocations: await repo.allocationsOf(trx, [receipt.id]) };
}

/**
 * A contact's credit moves by `paise` (received, used, taken back), and the business's kept credit
 * (the summary's credit_paise) with it, in the caller's transaction.
 */
async function moveCredit(trx: Executor, business: BusinessRow, contactId: string, paise: number, now: Date) {
  await repo.addContactCredit(trx, contactId, paise, now.toISOString());
  await aggregates.addCredit(trx, business.id, paise);
}
