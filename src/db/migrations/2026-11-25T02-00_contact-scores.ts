import type { Kysely } from 'kysely';
import { localDate } from '../../lib/dates.js';
import { mergeSums, type PaidSums, paidDueSums } from '../../lib/payment-score.js';
import { columnTypes } from '../column-types.js';
import type { Executor } from '../schema.js';

/**
 * Issue 18: `contact_scores`, what each contact's paid dues add to its payment score
 * (lib/payment-score.ts PaidSums), kept by the transaction that settles a due
 * (contacts/score-sums.ts); backfilled here from the paid dues already stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  const double = t.isPostgres ? 'double precision' : 'real';
  await db.schema
    .createTable('contact_scores')
    .addColumn('contact_id', t.uuid, (c) => c.primaryKey().references('contacts.id'))
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('epoch_day', 'integer', (c) => c.notNull())
    .addColumn('weighted', double, (c) => c.notNull())
    .addColumn('weights', double, (c) => c.notNull())
    .addColumn('terms', 'integer', (c) => c.notNull())
    .execute();
  await rebuildScoreSums(db as unknown as Executor);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('contact_scores').execute();
}

/** Paid dues read per statement by rebuildScoreSums. */
const REBUILD_PAGE = 5000;
/** Contacts written per statement by rebuildScoreSums (6 values each). */
const REBUILD_WRITE = 500;

/**
 * Recomputes `contact_scores` from the paid dues (of every business, or one): this migration's
 * backfill, and bench seeds that write paid rows directly. Replaces the rows of the contacts it
 * finds paid dues for. Memory: one entry per contact with paid dues.
 */
export async function rebuildScoreSums(db: Executor, businessId?: string): Promise<number> {
  const sums = new Map<string, { businessId: string; sums: PaidSums }>();
  let after: string | null = null;
  for (;;) {
    const page = await db
      .selectFrom('transactions as t')
      .innerJoin('businesses as b', 'b.id', 't.business_id')
      .select(['t.id', 't.business_id', 't.contact_id', 't.amount_paise', 't.due_date', 't.paid_at', 't.promise_date'])
      .select('b.timezone')
      .where('t.open', '=', 0)
      .$if(businessId !== undefined, (q) => q.where('t.business_id', '=', businessId as string))
      .$if(after !== null, (q) => q.where('t.id', '>', after as string))
      .orderBy('t.id')
      .limit(REBUILD_PAGE)
      .execute();
    for (const row of page) {
      if (row.paid_at === null) continue;
      const add = paidDueSums({
        amountPaise: Number(row.amount_paise),
        dueDate: row.due_date,
        paidDate: localDate(row.timezone, new Date(row.paid_at)),
        promiseDate: row.promise_date,
      });
      const kept = sums.get(row.contact_id);
      sums.set(row.contact_id, { businessId: row.business_id, sums: mergeSums(kept?.sums ?? null, add) });
    }
    if (page.length < REBUILD_PAGE) break;
    after = (page[page.length - 1] as { id: string }).id;
  }
  const rows = [...sums].map(([contactId, s]) => ({
    contact_id: contactId,
    business_id: s.businessId,
    epoch_day: s.sums.epochDay,
    weighted: s.sums.weighted,
    weights: s.sums.weights,
    terms: s.sums.terms,
  }));
  for (let i = 0; i < rows.length; i += REBUILD_WRITE) {
    const chunk = rows.slice(i, i + REBUILD_WRITE);
    await db
      .deleteFrom('contact_scores')
      .where(
        'contact_id',
        'in',
        chunk.map((r) => r.contact_id),
      )
      .execute();
    await db.insertInto('contact_scores').values(chunk).execute();
  }
  return rows.length;
}
