import { ledgerMonth } from '../../statements/statement.js';
import { addFigures, compareFigures, keyset, PAGE, type VerifyCheck } from './check.js';

type Figures = Map<string, Record<string, number>>;

/**
 * Each contact's kept statement months (contact_ledger_months): per month, its dues not deleted
 * (by created_at's UTC month), less its receipts (by received_on's month), plus their reversals
 * (by reversed_at's UTC month), less its adjustments (by created_at's UTC month).
 */
export const ledgerMonthsCheck: VerifyCheck = {
  name: 'ledger_months',
  describes: "each contact's statement movement per month, from its dues, receipts, reversals and adjustments",
  async run(db, business) {
    const expected: Figures = new Map();
    const add = (contactId: string, month: string, paise: number) =>
      addFigures(expected, `contact ${contactId} month ${month}`, { paise });
    const byId = <Row extends { id: string }>(page: (after: string | null) => Promise<Row[]>) =>
      keyset(page, (row) => row.id);
    const dues = byId((after) =>
      db
        .selectFrom('transactions')
        .select(['id', 'contact_id', 'amount_paise', 'created_at'])
        .where('business_id', '=', business.id)
        .where('deleted_at', 'is', null)
        .$if(after !== null, (q) => q.where('id', '>', after as string))
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    );
    for await (const d of dues) add(d.contact_id, ledgerMonth(d.created_at), Number(d.amount_paise));
    const receipts = byId((after) =>
      db
        .selectFrom('receipts')
        .select(['id', 'contact_id', 'amount_paise', 'received_on', 'reversed_at'])
        .where('business_id', '=', business.id)
        .$if(after !== null, (q) => q.where('id', '>', after as string))
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    );
    for await (const r of receipts) {
      add(r.contact_id, ledgerMonth(r.received_on), -Number(r.amount_paise));
      if (r.reversed_at !== null) add(r.contact_id, ledgerMonth(r.reversed_at), Number(r.amount_paise));
    }
    const adjustments = byId((after) =>
      db
        .selectFrom('adjustments')
        .select(['id', 'contact_id', 'amount_paise', 'created_at'])
        .where('business_id', '=', business.id)
        .$if(after !== null, (q) => q.where('id', '>', after as string))
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    );
    for await (const a of adjustments) add(a.contact_id, ledgerMonth(a.created_at), -Number(a.amount_paise));

    const kept: Figures = new Map();
    const months = keyset(
      (after: readonly [string, string] | null) =>
        db
          .selectFrom('contact_ledger_months')
          .select(['contact_id', 'month', 'paise'])
          .where('business_id', '=', business.id)
          .$if(after !== null, (q) =>
            q.where((eb) => eb(eb.refTuple('contact_id', 'month'), '>', eb.tuple(...(after as [string, string])))),
          )
          .orderBy('contact_id')
          .orderBy('month')
          .limit(PAGE)
          .execute(),
      (row) => [row.contact_id, row.month] as const,
    );
    for await (const m of months) {
      addFigures(kept, `contact ${m.contact_id} month ${m.month}`, { paise: Number(m.paise) });
    }
    return compareFigures(this.name, business.id, kept, expected);
  },
};
