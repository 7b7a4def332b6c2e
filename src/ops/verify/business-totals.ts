import { sql } from 'kysely';
import type { Executor } from '../../db/schema.js';
import { addFigures, compareFigures, type VerifyCheck } from './check.js';
import { balanceOf, type DueRow, duesOf } from './rows.js';

type Totals = Record<string, number>;

/**
 * business_totals (summed over a business's shards on PostgreSQL): dues by stored status (open
 * ones at their balance, paid ones at their whole amount; deleted ones nowhere), the number of
 * contacts and of those with a balance above 0, and the contacts' credit (their receipts' unused
 * credit, reversed ones left out).
 */
export function addDueToTotals(totals: Totals, due: DueRow): void {
  if (due.deleted_at !== null || due.open < 0) return;
  const add = (bucket: string, paise: number) => {
    totals[`${bucket}_count`] = (totals[`${bucket}_count`] ?? 0) + 1;
    totals[`${bucket}_paise`] = (totals[`${bucket}_paise`] ?? 0) + paise;
  };
  if (due.status === 'paid') add('paid', due.amount_paise);
  else if (due.status === 'pending' || due.status === 'overdue') add(due.status, balanceOf(due));
}

const COLUMNS = [
  'pending_count',
  'pending_paise',
  'overdue_count',
  'overdue_paise',
  'paid_count',
  'paid_paise',
  'contact_count',
  'credit_paise',
  'balance_contact_count',
] as const;

async function keptTotals(db: Executor, businessId: string): Promise<Totals | null> {
  const row = await db
    .selectFrom('business_totals')
    .select(sql<number>`count(*)`.as('rows'))
    .select(COLUMNS.map((c) => sql<number | string | null>`sum(${sql.ref(c)})`.as(c)))
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  if (!row || Number(row.rows) === 0) return null;
  return Object.fromEntries(COLUMNS.map((c) => [c, Number(row[c] ?? 0)]));
}

export const businessTotalsCheck: VerifyCheck = {
  name: 'business_totals',
  describes:
    "pending, overdue and paid counts and paise, the contact count, the count of contacts with a balance and the contacts' credit, from the dues, contacts and receipts",
  async run(db, business) {
    const expected: Totals = Object.fromEntries(COLUMNS.map((c) => [c, 0]));
    for await (const due of duesOf(db, business.id)) addDueToTotals(expected, due);
    const contacts = await db
      .selectFrom('contacts')
      .select(sql<number>`count(*)`.as('n'))
      .where('business_id', '=', business.id)
      .executeTakeFirstOrThrow();
    expected.contact_count = Number(contacts.n);
    // The contacts' kept balances are checked against their dues and receipts by contact_balances.
    const owing = await db
      .selectFrom('contacts')
      .select(sql<number>`count(*)`.as('n'))
      .where('business_id', '=', business.id)
      .where('balance_paise', '>', 0)
      .executeTakeFirstOrThrow();
    expected.balance_contact_count = Number(owing.n);
    const credit = await db
      .selectFrom('receipts')
      .select(sql<number | string | null>`sum(credit_paise)`.as('n'))
      .where('business_id', '=', business.id)
      .where('reversed_at', 'is', null)
      .executeTakeFirstOrThrow();
    expected.credit_paise = Number(credit.n ?? 0);
    const kept = await keptTotals(db, business.id);
    if (kept === null) {
      // Every reader and writer of the totals expects the business's row: its absence is a fault.
      return [
        {
          check: this.name,
          business_id: business.id,
          subject: 'totals',
          field: 'row',
          kept: null,
          expected: 'present',
        },
      ];
    }
    const k = new Map<string, Totals>();
    const e = new Map<string, Totals>();
    addFigures(k, 'totals', kept);
    addFigures(e, 'totals', expected);
    return compareFigures(this.name, business.id, k, e);
  },
};
