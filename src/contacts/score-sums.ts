import { addScoreSums } from '../db/port.js';
import type { Executor } from '../db/schema.js';
import { localDate } from '../lib/dates.js';
import { mergeSums, type PaidSums, paidDueSums } from '../lib/payment-score.js';

/**
 * Issue 18: a contact's payment score kept incrementally. Each due that becomes paid adds its
 * terms to its contact's `contact_scores` row, in the transaction that settles it (payments,
 * mark-paid, confirmed claims, the gateway and chat all settle through recordPaymentIn; a PATCH
 * lowering the amount to what was paid through patchDue). A reversal takes one back out (removeSettledDue); PATCH,
 * DELETE and payments refuse it, and a business's time zone is fixed, so the sums only grow.
 */

/** A due as it is settled: its amount, dates and promise, and when it was paid (ISO instant). */
export interface SettledDue {
  contact_id: string;
  amount_paise: number;
  due_date: string;
  promise_date: string | null;
}

/** Adds a due just settled at `paidAt` to its contact's score sums (in the settling transaction). */
export async function addSettledDue(
  trx: Executor,
  business: { id: string; timezone: string },
  due: SettledDue,
  paidAt: string,
): Promise<void> {
  const sums = paidDueSums({
    amountPaise: Number(due.amount_paise),
    dueDate: due.due_date,
    paidDate: localDate(business.timezone, new Date(paidAt)),
    promiseDate: due.promise_date,
  });
  await addScoreSums(trx, business.id, due.contact_id, sums);
}

/**
 * Adds many dues settled at their `paid_at` (a batch of receipts) to their contacts' score sums:
 * the terms of each contact's dues merged first, then one write per contact.
 */
export async function addSettledDues(
  trx: Executor,
  business: { id: string; timezone: string },
  dues: readonly (SettledDue & { paid_at: string | null })[],
  now: Date,
): Promise<void> {
  const byContact = new Map<string, PaidSums>();
  for (const due of dues) {
    const sums = paidDueSums({
      amountPaise: Number(due.amount_paise),
      dueDate: due.due_date,
      paidDate: localDate(business.timezone, new Date(due.paid_at ?? now.toISOString())),
      promiseDate: due.promise_date,
    });
    byContact.set(due.contact_id, mergeSums(byContact.get(due.contact_id) ?? null, sums));
  }
  for (const [contactId, sums] of byContact) await addScoreSums(trx, business.id, contactId, sums);
}

/**
 * Takes a settled due back out of its contact's score sums (a reversal reopens it): the same
 * terms added when it was settled at `paidAt`, subtracted.
 */
export async function removeSettledDue(
  trx: Executor,
  business: { id: string; timezone: string },
  due: SettledDue,
  paidAt: string,
): Promise<void> {
  const sums = paidDueSums({
    amountPaise: Number(due.amount_paise),
    dueDate: due.due_date,
    paidDate: localDate(business.timezone, new Date(paidAt)),
    promiseDate: due.promise_date,
  });
  await addScoreSums(trx, business.id, due.contact_id, {
    epochDay: sums.epochDay,
    weighted: -sums.weighted,
    weights: -sums.weights,
    terms: -sums.terms,
  });
  // With its last paid due reopened the contact has no paid dues: no row, as before any was paid
  // (a row of zero terms would keep float remainders the read would divide by).
  await trx.deleteFrom('contact_scores').where('contact_id', '=', due.contact_id).where('terms', '<=', 0).execute();
}
