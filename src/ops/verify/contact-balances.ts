import { addFigures, compareFigures, keyset, PAGE, type VerifyCheck } from './check.js';
import { balanceOf, duesOf } from './rows.js';

type Figures = Map<string, Record<string, number>>;

/**
 * Each contact's kept account figures: open_paise (its open dues' balances), credit_paise (its
 * receipts' unused credit, reversed ones left out), balance_paise (= open - credit). A contact
 * never holds credit and an open balance at once.
 */
export const contactBalancesCheck: VerifyCheck = {
  name: 'contact_balances',
  describes: "each contact's open balance, credit and balance, from its dues and its receipts' credit",
  async run(db, business) {
    const expected: Figures = new Map();
    const zero = { open_paise: 0, credit_paise: 0, balance_paise: 0 };
    for await (const due of duesOf(db, business.id)) {
      if (due.deleted_at !== null || due.open !== 1) continue;
      const b = balanceOf(due);
      addFigures(expected, `contact ${due.contact_id}`, { ...zero, open_paise: b, balance_paise: b });
    }
    // A receipt's own credit is checked against its allocations by the receipts check; here the
    // contact's credit is the sum of its receipts' kept credit.
    const receipts = keyset(
      (after) =>
        db
          .selectFrom('receipts')
          .select(['id', 'contact_id', 'credit_paise'])
          .where('business_id', '=', business.id)
          .where('reversed_at', 'is', null)
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    for await (const r of receipts) {
      const credit = Number(r.credit_paise);
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
    return compareFigures(this.name, business.id, kept, expected);
  },
};
