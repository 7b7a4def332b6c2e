import { sql } from 'kysely';
import { addFigures, compareFigures, keyset, PAGE, type VerifyCheck } from './check.js';
import { balanceOf, duesOf } from './rows.js';

type Figures = Map<string, Record<string, number>>;

/**
 * Each contact's kept account figures: open_paise (its open dues' balances), credit_paise (its
 * receipts' unused credit, reversed ones left out), balance_paise (= open - credit), and each
 * receipt's credit (its amount less its allocations). A contact never holds credit and an open
 * balance at once.
 */
export const contactBalancesCheck: VerifyCheck = {
  name: 'contact_balances',
  describes: "each contact's open balance, credit and balance, from its dues and receipts",
  async run(db, business) {
    const expected: Figures = new Map();
    const zero = { open_paise: 0, credit_paise: 0, balance_paise: 0 };
    for await (const due of duesOf(db, business.id)) {
      if (due.deleted_at !== null || due.open !== 1) continue;
      const b = balanceOf(due);
      addFigures(expected, `contact ${due.contact_id}`, { ...zero, open_paise: b, balance_paise: b });
    }
    const receipts = keyset(
      (after) =>
        db
          .selectFrom('receipts as r')
          .select(['r.id', 'r.contact_id', 'r.amount_paise', 'r.credit_paise', 'r.reversed_at'])
          .select((eb) =>
            eb
              .selectFrom('payments as p')
              .select(sql<number>`coalesce(sum(p.amount_paise), 0)`.as('n'))
              .whereRef('p.receipt_id', '=', 'r.id')
              .as('allocated'),
          )
          .where('r.business_id', '=', business.id)
          .$if(after !== null, (q) => q.where('r.id', '>', after as string))
          .orderBy('r.id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    const keptReceipts: Figures = new Map();
    const expectedReceipts: Figures = new Map();
    for await (const r of receipts) {
      if (r.reversed_at !== null) continue;
      const credit = Number(r.amount_paise) - Number(r.allocated ?? 0);
      addFigures(keptReceipts, `receipt ${r.id}`, { credit_paise: Number(r.credit_paise) });
      addFigures(expectedReceipts, `receipt ${r.id}`, { credit_paise: credit });
      addFigures(expected, `contact ${r.contact_id}`, { ...zero, credit_paise: credit, balance_paise: -credit });
    }
    const kept: Figures = new Map();
    const contacts = keyset(
      (after) =>
        db
          .selectFrom('contacts')
          .select(['id', 'open_paise', 'credit_paise', 'balance_paise'])
          .where('business_id', '=', business.id)
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    for await (const c of contacts) {
      const figures = {
        open_paise: Number(c.open_paise),
        credit_paise: Number(c.credit_paise),
        balance_paise: Number(c.balance_paise),
      };
      addFigures(kept, `contact ${c.id}`, figures);
      if (figures.open_paise > 0 && figures.credit_paise > 0) {
        addFigures(expected, `contact ${c.id}`, { credit_and_open: 0 });
        addFigures(kept, `contact ${c.id}`, { credit_and_open: 1 });
      }
    }
    return [
      ...compareFigures(this.name, business.id, kept, expected),
      ...compareFigures(this.name, business.id, keptReceipts, expectedReceipts),
    ];
  },
};
