import type { BusinessRow } from '../businesses/repository.js';
import { confirmAccountClaimIn } from '../claims/account.js';
import * as claims from '../claims/repository.js';
import type { Executor } from '../db/schema.js';
import { recordReceiptIn } from '../transactions/account.js';
import { balanceOf } from '../transactions/domain.js';
import { recordPaymentIn } from '../transactions/payments.js';
import { ReceiptBatch } from '../transactions/receipt-batch.js';
import { lockContact } from '../transactions/receipt-repository.js';
import * as dues from '../transactions/repository.js';
import {
  claimReferenceCandidates,
  claimReferenceFits,
  hasWholeWord,
  invoiceNumberCandidates,
  nameCandidates,
  payersIn,
  paymentMethodOf,
  paymentReferencesIn,
  utrIn,
} from './narration.js';
import type { StatementCredit } from './parse.js';
import * as repo from './repository.js';

/**
 * Matching new bank credits to what they pay, inside the upload's database transaction. Every
 * value a rule looks for (claim references, payment references, invoice numbers, payers, names) is
 * read for the whole statement at once with IN lookups by index; what is found is then checked
 * again on the locked rows as each credit is applied, in file order, so a due two credits name is
 * never paid beyond its balance (the rest of a receipt goes to other dues, then to credit).
 */

export type MatchedBy = 'claim' | 'reference' | 'invoice_number' | 'payer' | 'owner';

export interface Suggestion {
  transaction_id: string | null;
  contact_id: string | null;
  reason: 'amount' | 'name' | 'contact_balance';
}

export interface Outcome {
  status: 'matched' | 'suggested' | 'unmatched';
  matchedBy: MatchedBy | null;
  transactionId: string | null;
  contactId: string | null;
  receiptId: string | null;
  suggestions: Suggestion[];
}

export type NewCredit = StatementCredit & { id: string };

const MAX_SUGGESTIONS = 3;

/** What the statement's narrations name, read by index once for the whole statement. */
interface Found {
  /** pending claims by their reference, upper-cased */
  claims: Map<string, Awaited<ReturnType<typeof repo.pendingClaimsByReference>>>;
  dueRefs: Map<string, { id: string; contact_id: string }>;
  contactRefs: Map<string, string>;
  /** open dues by invoice number, upper-cased */
  invoices: Map<string, Awaited<ReturnType<typeof repo.openDuesByInvoiceNumber>>>;
  payers: Map<string, string>;
  names: Map<string, string>;
}

async function lookUp(trx: Executor, businessId: string, credits: readonly NewCredit[]): Promise<Found> {
  const refs = credits.flatMap((c) => paymentReferencesIn(c.narration));
  const [claimRows, dueRows, contactRows, invoices, payerRows, nameRows] = [
    await repo.pendingClaimsByReference(trx, businessId, credits.flatMap(claimReferenceCandidates)),
    await repo.duesByPaymentReference(trx, businessId, refs),
    await repo.contactsByPaymentReference(trx, businessId, refs),
    await repo.openDuesByInvoiceNumber(
      trx,
      businessId,
      credits.flatMap((c) => invoiceNumberCandidates(c.narration)),
    ),
    await repo.payersByKey(
      trx,
      businessId,
      credits.flatMap((c) => payersIn(c.narration)),
    ),
    await repo.contactsByNameKey(
      trx,
      businessId,
      credits.flatMap((c) => nameCandidates(c.narration)),
    ),
  ];
  return {
    claims: groupBy(claimRows, (r) => (r.reference ?? '').trim().toUpperCase()),
    dueRefs: new Map(dueRows.map((r) => [r.payment_reference as string, r])),
    contactRefs: new Map(contactRows.map((r) => [r.payment_reference as string, r.id])),
    invoices: groupBy(invoices, (r) => (r.invoice_number ?? '').toUpperCase()),
    payers: new Map(payerRows.map((r) => [r.payer, r.contact_id])),
    names: new Map(nameRows.map((r) => [r.name_key, r.id])),
  };
}

function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k) ?? [];
    list.push(row);
    map.set(k, list);
  }
  return map;
}

/** The rows of `map` under the credit's candidate keys, each once, in candidate order. */
function under<T>(map: Map<string, T[]>, keys: readonly string[]): T[] {
  const out = new Set<T>();
  for (const k of keys) for (const row of map.get(k.toUpperCase()) ?? []) out.add(row);
  return [...out];
}

const unmatched = (): Outcome => ({
  status: 'unmatched',
  matchedBy: null,
  transactionId: null,
  contactId: null,
  receiptId: null,
  suggestions: [],
});

/** The receipt a matched credit records: source bank, the credit's reference or the narration's UTR. */
function receiptInput(credit: StatementCredit) {
  return {
    amountPaise: credit.amountPaise,
    utr: credit.reference ?? utrIn(credit.narration),
    paymentMethod: paymentMethodOf(credit.narration),
    source: 'bank' as const,
    receivedOn: credit.date,
  };
}

/**
 * A receipt of the credit allocated to `transactionId` first (as far as its balance goes), the rest
 * to the contact's other open dues oldest first, then credit. `onlyWithin`: apply only when the
 * amount is within the due's balance (rule 3), else return undefined and apply nothing.
 */
export async function payDue(
  trx: Executor,
  business: BusinessRow,
  credit: StatementCredit,
  due: { id: string; contact_id: string },
  now: Date,
  onlyWithin = false,
) {
  // lockTransaction takes the contact, then the due: recordReceiptIn's lock order.
  const locked = await dues.lockTransaction(trx, business.id, due.id);
  const open = locked !== undefined && locked.open === 1 && locked.deleted_at === null;
  const balance = open ? balanceOf(locked) : 0;
  if (onlyWithin && (!open || credit.amountPaise > balance)) return undefined;
  const first = Math.min(credit.amountPaise, balance);
  const recorded = await recordReceiptIn(
    trx,
    business,
    due.contact_id,
    { ...receiptInput(credit), allocations: first > 0 ? [{ transactionId: due.id, amountPaise: first }] : [] },
    now,
  );
  return { transactionId: due.id, contactId: due.contact_id, receiptId: recorded.receipt.id };
}

export async function payContact(
  trx: Executor,
  business: BusinessRow,
  credit: StatementCredit,
  contactId: string,
  now: Date,
) {
  const recorded = await recordReceiptIn(trx, business, contactId, receiptInput(credit), now);
  return { transactionId: null, contactId, receiptId: recorded.receipt.id };
}

/**
 * Rule 1: a pending claim named by the credit, its amount within the due's (or, for an account
 * claim, the account's) balance: confirmed as the business would.
 */
async function confirmClaim(
  trx: Executor,
  business: BusinessRow,
  credit: StatementCredit,
  found: Found,
  now: Date,
): Promise<{ transactionId: string | null; contactId: string; receiptId: string } | undefined> {
  for (const claim of under(found.claims, claimReferenceCandidates(credit))) {
    if (claim.reference === null || !claimReferenceFits(credit, claim.reference)) continue;
    if (claim.transaction_id === null) {
      const contactId = claim.contact_id as string;
      const contact = await lockContact(trx, business.id, contactId);
      if (!contact || credit.amountPaise > Number(contact.balance_paise)) continue;
      const amount = { amountPaise: credit.amountPaise, receivedOn: credit.date };
      const confirmed = await confirmAccountClaimIn(trx, business, { ...claim, contact_id: contactId }, amount, now);
      if (confirmed) return { transactionId: null, contactId, receiptId: confirmed.receipt.id };
      continue;
    }
    const due = await dues.lockTransaction(trx, business.id, claim.transaction_id);
    if (due?.open !== 1 || due.deleted_at !== null || credit.amountPaise > balanceOf(due)) continue;
    const decided = await claims.decideClaim(trx, claim.id, 'confirmed', now.toISOString());
    if (!decided) continue;
    const recorded = await recordPaymentIn(
      trx,
      business,
      due.id,
      {
        amountPaise: credit.amountPaise,
        utr: claim.reference,
        paymentMethod: 'upi',
        source: 'claim',
        claimId: claim.id,
      },
      now,
    );
    return { transactionId: due.id, contactId: due.contact_id, receiptId: recorded.payment.receipt_id as string };
  }
  return undefined;
}

/** What rule 5 reads for a set of credits: open dues and contacts by balance, per amount. */
interface ByAmount {
  dues: Map<number, { id: string; contact_id: string }[]>;
  contacts: Map<number, string[]>;
}

/** Rule 5's candidates for every amount of `credits`, read at once (a limited index probe per amount). */
async function readByAmount(trx: Executor, businessId: string, credits: readonly StatementCredit[]): Promise<ByAmount> {
  const amounts = credits.map((c) => c.amountPaise);
  const dueRows = await repo.openDuesWithBalances(trx, businessId, amounts, MAX_SUGGESTIONS);
  const contactRows = await repo.contactsWithBalances(trx, businessId, amounts, MAX_SUGGESTIONS);
  // Oldest due date first within an amount, as one probe of the index reads them.
  dueRows.sort((a, b) => (a.due_date < b.due_date ? -1 : a.due_date > b.due_date ? 1 : 0));
  return {
    dues: groupBy(dueRows, (r) => r.balance),
    contacts: new Map(
      [...groupBy(contactRows, (r) => r.balance_paise)].map(([paise, rows]) => [paise, rows.map((r) => r.id)]),
    ),
  };
}

/** Rule 5 (pure): open dues whose balance is the amount, contacts named, contacts whose balance is the amount. */
function suggest(credit: StatementCredit, names: Found['names'], byAmount: ByAmount): Suggestion[] {
  const out: Suggestion[] = [];
  const add = (s: Suggestion) => {
    if (out.length >= MAX_SUGGESTIONS) return;
    if (out.some((o) => o.transaction_id === s.transaction_id && o.contact_id === s.contact_id)) return;
    out.push(s);
  };
  for (const d of (byAmount.dues.get(credit.amountPaise) ?? []).slice(0, MAX_SUGGESTIONS)) {
    add({ transaction_id: d.id, contact_id: d.contact_id, reason: 'amount' });
  }
  for (const key of nameCandidates(credit.narration)) {
    const id = names.get(key);
    if (id !== undefined) add({ transaction_id: null, contact_id: id, reason: 'name' });
  }
  for (const id of byAmount.contacts.get(credit.amountPaise) ?? []) {
    add({ transaction_id: null, contact_id: id, reason: 'contact_balance' });
  }
  return out;
}

/** Rule 5 alone, for a credit back in the review queue: its suggestions as they stand now. */
export async function suggestionsFor(trx: Executor, businessId: string, credit: StatementCredit) {
  const names = await repo.contactsByNameKey(trx, businessId, nameCandidates(credit.narration));
  const byAmount = await readByAmount(trx, businessId, [credit]);
  return suggest(credit, new Map(names.map((r) => [r.name_key, r.id])), byAmount);
}

/**
 * Applies rules 1-5 to a chunk of new credits in file order; returns each credit's outcome (by
 * id). The values the narrations name are read in a few IN lookups for the whole chunk; rules 1-4
 * are applied line by line on the locked rows (a due two lines name is never paid beyond its
 * balance); the payers learnt are written once; then rule 5's candidates for every line left over are read at once (so they see
 * the chunk's receipts). Cost: a few statements per chunk plus those of each receipt.
 */
export async function matchCredits(
  trx: Executor,
  business: BusinessRow,
  credits: readonly NewCredit[],
  now: Date,
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  if (credits.length === 0) return outcomes;
  const found = await lookUp(trx, business.id, credits);
  /** payers matched in this chunk, each to the latest contact (written once at the end) */
  const learnt = new Map<string, string>();
  const left: NewCredit[] = [];
  await applyRules(trx, business, credits, now, found, learnt, left, outcomes);
  await repo.rememberPayerContacts(trx, business.id, learnt, now.toISOString());
  if (left.length === 0) return outcomes;
  const byAmount = await readByAmount(trx, business.id, left);
  for (const credit of left) {
    const suggestions = suggest(credit, found.names, byAmount);
    outcomes.set(credit.id, {
      ...unmatched(),
      status: suggestions.length > 0 ? 'suggested' : 'unmatched',
      suggestions,
    });
  }
  return outcomes;
}

/**
 * Rules 1-4 for each credit of a chunk in file order; the credits none of them matched are pushed
 * to `left`. The receipts of rules 2-4 are recorded in one batch (transactions/receipt-batch.ts:
 * computed in memory on the locked rows, written together), the contacts and dues the chunk names
 * locked at once; a credit that names a pending claim has the batch written first, then the claim
 * confirmed as the business would (claims/).
 */
async function applyRules(
  trx: Executor,
  business: BusinessRow,
  credits: readonly NewCredit[],
  now: Date,
  found: Found,
  learnt: Map<string, string>,
  left: NewCredit[],
  outcomes: Map<string, Outcome>,
): Promise<void> {
  const batch = new ReceiptBatch(trx, business, now);
  const named = [...found.dueRefs.values(), ...[...found.invoices.values()].flat()];
  await batch.lock(
    [...named.map((d) => d.contact_id), ...found.contactRefs.values(), ...found.payers.values()],
    named.map((d) => d.id),
  );
  for (const credit of credits) {
    let matchedBy: MatchedBy | null = null;
    let applied: { transactionId: string | null; contactId: string; receiptId: string } | undefined;
    if (under(found.claims, claimReferenceCandidates(credit)).length > 0) {
      await batch.write();
      applied = await confirmClaim(trx, business, credit, found, now);
      if (applied) matchedBy = 'claim';
    }
    if (!applied) {
      for (const ref of paymentReferencesIn(credit.narration)) {
        const due = found.dueRefs.get(ref);
        const contactId = found.contactRefs.get(ref);
        if (due) applied = await payDueIn(batch, credit, due);
        else if (contactId !== undefined) applied = await payContactIn(batch, credit, contactId);
        if (applied) {
          matchedBy = 'reference';
          break;
        }
      }
    }
    if (!applied) {
      for (const due of under(found.invoices, invoiceNumberCandidates(credit.narration))) {
        if (due.invoice_number === null || !hasWholeWord(credit.narration, due.invoice_number)) continue;
        applied = await payDueIn(batch, credit, due, true);
        if (applied) {
          matchedBy = 'invoice_number';
          break;
        }
      }
    }
    const payers = payersIn(credit.narration);
    if (applied) {
      for (const p of payers) {
        found.payers.set(p, applied.contactId);
        learnt.set(p, applied.contactId);
      }
    } else {
      const contactId = payers.map((p) => found.payers.get(p)).find((id) => id !== undefined);
      if (contactId !== undefined) {
        applied = await payContactIn(batch, credit, contactId);
        matchedBy = 'payer';
      }
    }
    if (applied) {
      outcomes.set(credit.id, {
        status: 'matched',
        matchedBy,
        transactionId: applied.transactionId,
        contactId: applied.contactId,
        receiptId: applied.receiptId,
        suggestions: [],
      });
    } else left.push(credit);
  }
  await batch.write();
}

/** payDue in a batch: the due as the batch has left it. */
async function payDueIn(
  batch: ReceiptBatch,
  credit: StatementCredit,
  named: { id: string; contact_id: string },
  onlyWithin = false,
) {
  const due = await batch.due(named.id);
  const open = due !== undefined && due.open === 1 && due.deleted_at === null;
  const balance = open ? balanceOf(due) : 0;
  if (onlyWithin && (!open || credit.amountPaise > balance)) return undefined;
  const first = Math.min(credit.amountPaise, balance);
  const receipt = await batch.record(named.contact_id, {
    ...receiptInput(credit),
    allocations: first > 0 ? [{ transactionId: named.id, amountPaise: first }] : [],
  });
  return { transactionId: named.id, contactId: named.contact_id, receiptId: receipt.id };
}

async function payContactIn(batch: ReceiptBatch, credit: StatementCredit, contactId: string) {
  const receipt = await batch.record(contactId, receiptInput(credit));
  return { transactionId: null, contactId, receiptId: receipt.id };
}
