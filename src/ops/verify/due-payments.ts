import type { Difference, VerifyCheck } from './check.js';
import { type DueRow, duesOf, paidOf } from './rows.js';

/**
 * What a due's own columns must say given its payments and adjustments: the amount paid is the
 * sum of its payments not reversed (the whole amount for a due paid before payments were recorded
 * one by one), the amount adjusted the sum of its adjustments, `open` follows
 * deletion and payment (-1 deleted, 0 paid, 1 open), the status agrees with `open`, and a paid
 * due (only) has its paid_at.
 */
export function dueDifferences(check: string, businessId: string, due: DueRow): Difference[] {
  const paid = paidOf(due);
  const open = due.deleted_at !== null ? -1 : paid + due.adjustments_paise >= due.amount_paise ? 0 : 1;
  const statuses = open === 0 ? ['paid'] : ['pending', 'overdue'];
  const out: Difference[] = [];
  const differ = (field: string, kept: number | string | null, expected: number | string | null) =>
    out.push({ check, business_id: businessId, subject: `due ${due.id}`, field, kept, expected });
  if (due.amount_paid_paise !== paid) differ('amount_paid_paise', due.amount_paid_paise, paid);
  else if (paid + due.adjustments_paise > due.amount_paise) differ('amount_paid_paise', paid, due.amount_paise);
  if (due.amount_adjusted_paise !== due.adjustments_paise) {
    differ('amount_adjusted_paise', due.amount_adjusted_paise, due.adjustments_paise);
  }
  if (due.open !== open) differ('open', due.open, open);
  if (!statuses.includes(due.status)) differ('status', due.status, statuses.join(' or '));
  if ((due.paid_at !== null) !== (open === 0)) differ('paid_at', due.paid_at, open === 0 ? 'set' : null);
  return out;
}

export const duePaymentsCheck: VerifyCheck = {
  name: 'due_payments',
  describes: "each due's amount paid (its balance), open flag, status and paid_at, from its payments",
  async run(db, business) {
    const out: Difference[] = [];
    for await (const due of duesOf(db, business.id)) out.push(...dueDifferences(this.name, business.id, due));
    return out;
  },
};
