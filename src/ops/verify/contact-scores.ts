import type { Executor } from '../../db/schema.js';
import { localDate } from '../../lib/dates.js';
import { mergeSums, type PaidSums, paidDueSums } from '../../lib/payment-score.js';
import { type Difference, keyset, PAGE, type VerifyCheck } from './check.js';

/** Relative difference the floating-point sums may show between two orders of adding the same terms. */
const TOLERANCE = 1e-9;

/** One contact's sums from its paid dues (each due's terms, paid on its business-local paid date). */
export function addPaidDueToScores(
  scores: Map<string, PaidSums>,
  timezone: string,
  due: { contact_id: string; amount_paise: number; due_date: string; paid_at: string; promise_date: string | null },
): void {
  const add = paidDueSums({
    amountPaise: due.amount_paise,
    dueDate: due.due_date,
    paidDate: localDate(timezone, new Date(due.paid_at)),
    promiseDate: due.promise_date,
  });
  scores.set(due.contact_id, mergeSums(scores.get(due.contact_id) ?? null, add));
}

export function compareScores(
  check: string,
  businessId: string,
  kept: ReadonlyMap<string, PaidSums>,
  expected: ReadonlyMap<string, PaidSums>,
): Difference[] {
  const out: Difference[] = [];
  for (const contactId of [...new Set([...kept.keys(), ...expected.keys()])].sort()) {
    const k = kept.get(contactId);
    const e = expected.get(contactId);
    const subject = `contact ${contactId}`;
    const differ = (field: string, a: number | string | null, b: number | string | null) =>
      out.push({ check, business_id: businessId, subject, field, kept: a, expected: b });
    if (!k || !e) {
      differ('row', k ? 'present' : null, e ? 'present' : null);
      continue;
    }
    if (k.terms !== e.terms) differ('terms', k.terms, e.terms);
    if (k.epochDay !== e.epochDay) differ('epoch_day', k.epochDay, e.epochDay);
    else {
      if (Math.abs(k.weights - e.weights) > TOLERANCE * e.weights) differ('weights', k.weights, e.weights);
      if (Math.abs(k.weighted - e.weighted) > TOLERANCE * Math.max(e.weighted, 1)) {
        differ('weighted', k.weighted, e.weighted);
      }
    }
  }
  return out;
}

async function keptScores(db: Executor, businessId: string): Promise<Map<string, PaidSums>> {
  const scores = new Map<string, PaidSums>();
  const rows = keyset(
    (after) =>
      db
        .selectFrom('contact_scores')
        .select(['contact_id', 'epoch_day', 'weighted', 'weights', 'terms'])
        .where('business_id', '=', businessId)
        .$if(after !== null, (q) => q.where('contact_id', '>', after as string))
        .orderBy('contact_id')
        .limit(PAGE)
        .execute(),
    (row) => row.contact_id,
  );
  for await (const r of rows) {
    scores.set(r.contact_id, {
      epochDay: Number(r.epoch_day),
      weighted: Number(r.weighted),
      weights: Number(r.weights),
      terms: Number(r.terms),
    });
  }
  return scores;
}

export const contactScoresCheck: VerifyCheck = {
  name: 'contact_scores',
  describes: "each contact's payment-score sums, from its paid dues",
  async run(db, business) {
    const expected = new Map<string, PaidSums>();
    const paid = keyset(
      (after) =>
        db
          .selectFrom('transactions')
          .select(['id', 'contact_id', 'amount_paise', 'due_date', 'paid_at', 'promise_date'])
          .where('business_id', '=', business.id)
          .where('open', '=', 0)
          .where('paid_at', 'is not', null)
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    for await (const due of paid) {
      addPaidDueToScores(expected, business.timezone, {
        ...due,
        amount_paise: Number(due.amount_paise),
        paid_at: due.paid_at as string,
      });
    }
    return compareScores(this.name, business.id, await keptScores(db, business.id), expected);
  },
};
