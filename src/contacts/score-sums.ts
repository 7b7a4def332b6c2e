import { sql } from 'kysely';
import { isPostgres } from '../db/precompiled.js';
import type { Executor } from '../db/schema.js';
import { localDate } from '../lib/dates.js';
import { HALF_LIFE_DAYS, type PaidSums, paidDueSums } from '../lib/payment-score.js';

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

/**
 * One statement: the row is created or rescaled to the later epoch and added to (PostgreSQL
 * locks the row for the UPDATE, so concurrent settlements of one contact's dues add up).
 */
function upsert(db: Executor, businessId: string, contactId: string, s: PaidSums) {
  const half = HALF_LIFE_DAYS;
  if (isPostgres(db)) {
    const epoch = sql`greatest(contact_scores.epoch_day, excluded.epoch_day)`;
    const old = sql`power(2::float8, (contact_scores.epoch_day - ${epoch})::float8 / ${sql.lit(half)})`;
    const add = sql`power(2::float8, (excluded.epoch_day - ${epoch})::float8 / ${sql.lit(half)})`;
    return sql`insert into contact_scores (contact_id, business_id, epoch_day, weighted, weights, terms)
      values (${contactId}, ${businessId}, ${s.epochDay}, ${s.weighted}::float8, ${s.weights}::float8, ${s.terms})
      on conflict (contact_id) do update set
        epoch_day = ${epoch},
        weighted = contact_scores.weighted * ${old} + excluded.weighted * ${add},
        weights = contact_scores.weights * ${old} + excluded.weights * ${add},
        terms = contact_scores.terms + excluded.terms`.execute(db);
  }
  const epoch = sql`max(contact_scores.epoch_day, excluded.epoch_day)`;
  const old = sql`pow(2.0, (contact_scores.epoch_day - ${epoch}) / ${sql.lit(`${half}.0`)})`;
  const add = sql`pow(2.0, (excluded.epoch_day - ${epoch}) / ${sql.lit(`${half}.0`)})`;
  return sql`insert into contact_scores (contact_id, business_id, epoch_day, weighted, weights, terms)
    values (${contactId}, ${businessId}, ${s.epochDay}, ${s.weighted}, ${s.weights}, ${s.terms})
    on conflict (contact_id) do update set
      epoch_day = ${epoch},
      weighted = contact_scores.weighted * ${old} + excluded.weighted * ${add},
      weights = contact_scores.weights * ${old} + excluded.weights * ${add},
      terms = contact_scores.terms + excluded.terms`.execute(db);
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
  await upsert(trx, business.id, due.contact_id, sums);
}

/** Recomputes the sums from the paid dues (bench seeds that write paid rows directly). */
export { rebuildScoreSums } from '../db/migrations/2026-11-25T02-00_contact-scores.js';

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
  await upsert(trx, business.id, due.contact_id, {
    epochDay: sums.epochDay,
    weighted: -sums.weighted,
    weights: -sums.weights,
    terms: -sums.terms,
  });
  // With its last paid due reopened the contact has no paid dues: no row, as before any was paid
  // (a row of zero terms would keep float remainders the read would divide by).
  await trx.deleteFrom('contact_scores').where('contact_id', '=', due.contact_id).where('terms', '<=', 0).execute();
}
