import { sql } from 'kysely';
import type { Executor } from '../../db/schema.js';
import { keyset, PAGE } from './check.js';

/** A due as the checks read it (money as numbers; every due, deleted ones included), with its payments. */
export interface DueRow {
  id: string;
  contact_id: string;
  status: string;
  open: number;
  amount_paise: number;
  /** as kept on the due (due_payments checks it); recomputations use paidOf */
  amount_paid_paise: number;
  due_date: string;
  paid_at: string | null;
  deleted_at: string | null;
  promise_date: string | null;
  /** the sum and number of the due's payment rows (those of reversed receipts left out) */
  payments_paise: number;
  payments: number;
  /** as kept on the due; recomputations use adjustments_paise */
  amount_adjusted_paise: number;
  /** the sum of the due's adjustments */
  adjustments_paise: number;
}

/** The business's dues, page by page, each with its payment rows summed. */
export async function* duesOf(db: Executor, businessId: string): AsyncGenerator<DueRow> {
  const rows = keyset(
    (after) =>
      db
        .selectFrom('transactions as t')
        .select([
          't.id',
          't.contact_id',
          't.status',
          't.open',
          't.amount_paise',
          't.amount_paid_paise',
          't.amount_adjusted_paise',
          't.due_date',
          't.paid_at',
          't.deleted_at',
          't.promise_date',
        ])
        .select((eb) => [
          eb
            .selectFrom('payments as p')
            .select(sql<number>`coalesce(sum(p.amount_paise), 0)`.as('n'))
            .whereRef('p.transaction_id', '=', 't.id')
            .where('p.reversed_at', 'is', null)
            .as('payments_paise'),
          eb
            .selectFrom('payments as p')
            .select(sql<number>`count(*)`.as('n'))
            .whereRef('p.transaction_id', '=', 't.id')
            .as('payments'),
          eb
            .selectFrom('adjustments as a')
            .select(sql<number>`coalesce(sum(a.amount_paise), 0)`.as('n'))
            .whereRef('a.transaction_id', '=', 't.id')
            .as('adjustments_paise'),
        ])
        .where('t.business_id', '=', businessId)
        .$if(after !== null, (q) => q.where('t.id', '>', after as string))
        .orderBy('t.id')
        .limit(PAGE)
        .execute(),
    (row) => row.id,
  );
  for await (const row of rows) {
    yield {
      ...row,
      open: Number(row.open),
      amount_paise: Number(row.amount_paise),
      amount_paid_paise: Number(row.amount_paid_paise),
      payments_paise: Number(row.payments_paise ?? 0),
      payments: Number(row.payments ?? 0),
      amount_adjusted_paise: Number(row.amount_adjusted_paise),
      adjustments_paise: Number(row.adjustments_paise ?? 0),
    };
  }
}

/**
 * A paid due with no payment row was paid whole before payments were recorded one by one (stores
 * made before part payments): its amount counts as one payment at its paid_at. A due closed by
 * adjustments alone (a write-off, a credit note) has none either, and no money was received.
 */
export function paidBeforePayments(due: Pick<DueRow, 'open' | 'paid_at' | 'payments' | 'adjustments_paise'>): boolean {
  return due.open === 0 && due.payments === 0 && due.adjustments_paise === 0 && due.paid_at !== null;
}

/** What the due's payments add up to, from the payment rows. */
export function paidOf(due: DueRow): number {
  return paidBeforePayments(due) ? due.amount_paise : due.payments_paise;
}

/** What the totals count of an open due: the amount less its payments and adjustments. */
export function balanceOf(due: DueRow): number {
  return due.amount_paise - paidOf(due) - due.adjustments_paise;
}
