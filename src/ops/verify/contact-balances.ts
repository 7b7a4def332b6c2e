import { addFigures, compareFigures, keyset, PAGE, type VerifyCheck } from './check.js';
import { balanceOf, duesOf } from './rows.js';

type Figures = Map<string, Record<string, number>>;

/**
 * Each contact's kept account figures: open_paise (its open dues' balances), credit_paise (its
 * receipts' unused credit, reversed ones left out), balance_paise (= open - credit), due_count
 * (its dues not deleted), and its open days (contact_open_days: per due date its open dues'
 * count and balances, and the amounts scored on that day: its open dues due or promised then).
 * A contact never holds credit and an open balance at once. One pass over the dues for all.
 */
export const contactBalancesCheck: VerifyCheck = {
  name: 'contact_balances',
  describes:
    "each contact's open balance, credit, balance, count of dues and open dues by day, from its dues and its receipts' credit",
  async run(db, business) {
    const expected: Figures = new Map();
    const zero = { open_paise: 0, credit_paise: 0, balance_paise: 0, due_count: 0 };
    const day = (contactId: string, date: string) => `contact ${contactId} day ${date}`;
    for await (const due of duesOf(db, business.id)) {
      if (due.deleted_at !== null) continue;
      addFigures(expected, `contact ${due.contact_id}`, { ...zero, due_count: 1 });
      if (due.open !== 1) continue;
      const b = balanceOf(due);
      const amount = Number(due.amount_paise);
      addFigures(expected, `contact ${due.contact_id}`, { ...zero, open_paise: b, balance_paise: b });
      addFigures(expected, day(due.contact_id, due.due_date), { due_count: 1, balance_paise: b, scored_paise: amount });
      if (due.promise_date !== null) {
        addFigures(expected, day(due.contact_id, due.promise_date), {
          due_count: 0,
          balance_paise: 0,
          scored_paise: amount,
        });
      }
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
          .select(['id', 'open_paise', 'credit_paise', 'balance_paise', 'due_count'])
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
        due_count: Number(c.due_count),
      };
      addFigures(kept, `contact ${c.id}`, figures);
      if (figures.open_paise > 0 && figures.credit_paise > 0) {
        addFigures(expected, `contact ${c.id}`, { credit_and_open: 0 });
        addFigures(kept, `contact ${c.id}`, { credit_and_open: 1 });
      }
    }
    // The open days, by the business's contacts (the table has no business column), keyset on
    // (contact_id, day).
    const days = keyset(
      (after: readonly [string, string] | null) =>
        db
          .selectFrom('contact_open_days as d')
          .innerJoin('contacts as c', 'c.id', 'd.contact_id')
          .select(['d.contact_id', 'd.day', 'd.due_count', 'd.balance_paise', 'd.scored_paise'])
          .where('c.business_id', '=', business.id)
          .$if(after !== null, (q) =>
            q.where((eb) => eb(eb.refTuple('d.contact_id', 'd.day'), '>', eb.tuple(...(after as [string, string])))),
          )
          .orderBy('d.contact_id')
          .orderBy('d.day')
          .limit(PAGE)
          .execute(),
      (row) => [row.contact_id, row.day] as const,
    );
    for await (const d of days) {
      // A day whose dues and promises are all gone is removed: one left at zero is a difference too.
      if (Number(d.due_count) === 0 && Number(d.scored_paise) === 0) {
        addFigures(kept, day(d.contact_id, d.day), { emptied_day: 1 });
      }
      addFigures(kept, day(d.contact_id, d.day), {
        due_count: Number(d.due_count),
        balance_paise: Number(d.balance_paise),
        scored_paise: Number(d.scored_paise),
      });
    }
    return compareFigures(this.name, business.id, kept, expected);
  },
};
