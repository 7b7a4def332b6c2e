import { sql } from 'kysely';
import type { Executor } from '../../db/schema.js';
import { localMonth } from '../../lib/dates.js';
import { addFigures, compareFigures, keyset, PAGE, type VerifyCheck } from './check.js';

type Months = Map<string, Record<string, number>>;

/**
 * paid_by_month's money: every receipt not reversed in the business-local month it was received, and a due paid
 * whole before payments were recorded one by one (no payment row) at its amount in the month of
 * its paid_at. Its due_count (the dues settled each month) is read by nothing and not checked.
 */
export function addPaymentToMonths(months: Months, timezone: string, paise: number, at: string): void {
  addFigures(months, `month ${localMonth(timezone, new Date(at))}`, { due_paise: paise });
}

async function keptMonths(db: Executor, businessId: string): Promise<Months> {
  const rows = await db
    .selectFrom('paid_by_month')
    .select(['month', sql<number>`sum(due_paise)`.as('due_paise')])
    .where('business_id', '=', businessId)
    .groupBy('month')
    .execute();
  const months: Months = new Map();
  for (const r of rows) addFigures(months, `month ${r.month}`, { due_paise: Number(r.due_paise) });
  return months;
}

export const paidByMonthCheck: VerifyCheck = {
  name: 'paid_by_month',
  describes: 'money received per business-local month (paid_this_month_paise), from the payments',
  async run(db, business) {
    const expected: Months = new Map();
    // Money is counted once, when received: each receipt not reversed (its allocations and its
    // credit; credit used later is not new money) in the month it was recorded.
    const payments = keyset(
      (after) =>
        db
          .selectFrom('receipts')
          .select(['id', 'amount_paise', 'created_at'])
          .where('business_id', '=', business.id)
          .where('reversed_at', 'is', null)
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    for await (const p of payments)
      addPaymentToMonths(expected, business.timezone, Number(p.amount_paise), p.created_at);
    const paidWhole = keyset(
      (after) =>
        db
          .selectFrom('transactions as t')
          .select(['t.id', 't.amount_paise', 't.paid_at'])
          .where('t.business_id', '=', business.id)
          .where('t.open', '=', 0)
          .where('t.paid_at', 'is not', null)
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('payments as p').select('p.id').whereRef('p.transaction_id', '=', 't.id'))),
          )
          // Closed by adjustments alone (a write-off): no money received.
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('adjustments as a').select('a.id').whereRef('a.transaction_id', '=', 't.id'))),
          )
          .$if(after !== null, (q) => q.where('t.id', '>', after as string))
          .orderBy('t.id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    for await (const due of paidWhole) {
      addPaymentToMonths(expected, business.timezone, Number(due.amount_paise), due.paid_at as string);
    }
    return compareFigures(this.name, business.id, await keptMonths(db, business.id), expected);
  },
};
