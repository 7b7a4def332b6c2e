import { sql } from 'kysely';
import { type Difference, keyset, PAGE, type VerifyCheck } from './check.js';

/**
 * A receipt's split: what it applied to dues is the sum of its allocations (payment rows, those
 * that used its credit later included) and the rest is its credit, so applied + credit = amount;
 * a reversed receipt's allocations are all reversed and it holds no credit.
 */
export function receiptDifferences(
  check: string,
  businessId: string,
  r: {
    id: string;
    amount_paise: number;
    applied_paise: number;
    credit_paise: number;
    reversed: boolean;
    allocated: number;
  },
): Difference[] {
  const out: Difference[] = [];
  const differ = (field: string, kept: number, expected: number) =>
    out.push({ check, business_id: businessId, subject: `receipt ${r.id}`, field, kept, expected });
  if (r.reversed) {
    if (r.credit_paise !== 0) differ('credit_paise', r.credit_paise, 0);
    if (r.allocated !== 0) differ('allocations', r.allocated, 0);
    return out;
  }
  if (r.applied_paise !== r.allocated) differ('applied_paise', r.applied_paise, r.allocated);
  if (r.credit_paise !== r.amount_paise - r.allocated)
    differ('credit_paise', r.credit_paise, r.amount_paise - r.allocated);
  return out;
}

export const receiptsCheck: VerifyCheck = {
  name: 'receipts',
  describes: "each receipt's applied amount and credit, from its allocations",
  async run(db, business) {
    const out: Difference[] = [];
    const rows = keyset(
      (after) =>
        db
          .selectFrom('receipts as r')
          .select(['r.id', 'r.amount_paise', 'r.applied_paise', 'r.credit_paise', 'r.reversed_at'])
          .select((eb) =>
            eb
              .selectFrom('payments as p')
              .select(sql<number>`coalesce(sum(p.amount_paise), 0)`.as('n'))
              .whereRef('p.receipt_id', '=', 'r.id')
              .where('p.reversed_at', 'is', null)
              .as('allocated'),
          )
          .where('r.business_id', '=', business.id)
          .$if(after !== null, (q) => q.where('r.id', '>', after as string))
          .orderBy('r.id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    for await (const r of rows) {
      out.push(
        ...receiptDifferences(this.name, business.id, {
          id: r.id,
          amount_paise: Number(r.amount_paise),
          applied_paise: Number(r.applied_paise),
          credit_paise: Number(r.credit_paise),
          reversed: r.reversed_at !== null,
          allocated: Number(r.allocated ?? 0),
        }),
      );
    }
    return out;
  },
};
