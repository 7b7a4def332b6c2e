import { sql } from 'kysely';
import type { Difference, VerifyCheck } from './check.js';
import { keyset, PAGE } from './check.js';

/**
 * A due's counters: claim_count counts its "I have paid" claims, reminder_count its reminders
 * sent. Kept on the due (the earlier response shape shows them), moved in the transaction that
 * records the claim or the sent reminder.
 */
export const dueCountersCheck: VerifyCheck = {
  name: 'due_counters',
  describes: "each due's claim and sent-reminder counts, from its claims and reminders",
  async run(db, business) {
    const out: Difference[] = [];
    const dues = keyset(
      (after) =>
        db
          .selectFrom('transactions as t')
          .select(['t.id', 't.claim_count', 't.reminder_count'])
          .select((eb) => [
            eb
              .selectFrom('payment_claims as c')
              .select(sql<number>`count(*)`.as('n'))
              .whereRef('c.transaction_id', '=', 't.id')
              .as('claims'),
            eb
              .selectFrom('reminders as r')
              .select(sql<number>`count(*)`.as('n'))
              .whereRef('r.transaction_id', '=', 't.id')
              .where('r.status', '=', 'sent')
              .as('sent'),
          ])
          .where('t.business_id', '=', business.id)
          .$if(after !== null, (q) => q.where('t.id', '>', after as string))
          .orderBy('t.id')
          .limit(PAGE)
          .execute(),
      (row) => row.id,
    );
    for await (const row of dues) {
      const pairs: [string, number, number][] = [
        ['claim_count', Number(row.claim_count), Number(row.claims ?? 0)],
        ['reminder_count', Number(row.reminder_count), Number(row.sent ?? 0)],
      ];
      for (const [field, kept, expected] of pairs) {
        if (kept !== expected) {
          out.push({ check: this.name, business_id: business.id, subject: `due ${row.id}`, field, kept, expected });
        }
      }
    }
    return out;
  },
};
