import { sql } from 'kysely';
import type { Executor } from '../../db/schema.js';
import { addFigures, compareFigures, keyset, PAGE, type VerifyCheck } from './check.js';
import { balanceOf, duesOf } from './rows.js';

type Balances = Map<string, Record<string, number>>;

/**
 * A contact's kept account: open_paise (its open dues' balances), credit_paise (what its receipts
 * not reversed left unused) and balance_paise (open less credit).
 */
async function keptBalances(db: Executor, businessId: string): Promise<Balances> {
  const kept: Balances = new Map();
  const rows = keyset(
    (after) =>
      db
        .selectFrom('contacts')
        .select(['id', 'open_paise', 'credit_paise', 'balance_paise'])
        .where('business_id', '=', businessId)
        .$if(after !== null, (q) => q.where('id', '>', after as string))
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    (row) => row.id,
  );
  for await (const c of rows) {
    addFigures(kept, `contact ${c.id}`, {
      open_paise: Number(c.open_paise),
      credit_paise: Number(c.credit_paise),
      balance_paise: Number(c.balance_paise),
    });
  }
  return kept;
}

export const contactBalancesCheck: VerifyCheck = {
  name: 'contact_balances',
  describes: "each contact's open balance, credit and account balance, from its dues and receipts",
  async run(db, business) {
    const expected: Balances = new Map();
    for await (const due of duesOf(db, business.id)) {
      if (due.open !== 1 || due.deleted_at !== null) continue;
      const b = balanceOf(due);
      addFigures(expected, `contact ${due.contact_id}`, { open_paise: b, balance_paise: b });
    }
    const credit = await db
      .selectFrom('receipts')
      .select(['contact_id', sql<number>`sum(credit_paise)`.as('credit')])
      .where('business_id', '=', business.id)
      .where('reversed_at', 'is', null)
      .groupBy('contact_id')
      .execute();
    for (const c of credit) {
      const paise = Number(c.credit);
      addFigures(expected, `contact ${c.contact_id}`, { credit_paise: paise, balance_paise: -paise });
    }
    return compareFigures(this.name, business.id, await keptBalances(db, business.id), expected);
  },
};
