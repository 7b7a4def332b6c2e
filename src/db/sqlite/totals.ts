import { sql } from 'kysely';
import { precompiled } from '../precompiled.js';
import type { Executor } from '../schema.js';
import type { DayDelta, TotalsDeltas } from '../totals-deltas.js';

/**
 * SQLite's running totals: one row per key (one writer at a time, nothing to shard). A change's
 * deltas are written table by table in the one lock order (business_totals, pending_by_day,
 * open_by_day, paid_by_month); a day row whose count drops to 0 is deleted, so that range reads
 * and the sweeper stay short.
 */

/** Every totals column in one precompiled statement (a column given 0 is left as it is). */
const addToTotalsQuery = precompiled<
  {
    businessId: string;
    pending_count: number;
    pending_paise: number;
    overdue_count: number;
    overdue_paise: number;
    paid_count: number;
    paid_paise: number;
    contact_count: number;
    credit_paise: number;
  },
  never
>((db, arg) =>
  db
    .updateTable('business_totals')
    .set({
      pending_count: sql`pending_count + ${arg('pending_count')}`,
      pending_paise: sql`pending_paise + ${arg('pending_paise')}`,
      overdue_count: sql`overdue_count + ${arg('overdue_count')}`,
      overdue_paise: sql`overdue_paise + ${arg('overdue_paise')}`,
      paid_count: sql`paid_count + ${arg('paid_count')}`,
      paid_paise: sql`paid_paise + ${arg('paid_paise')}`,
      contact_count: sql`contact_count + ${arg('contact_count')}`,
      credit_paise: sql`credit_paise + ${arg('credit_paise')}`,
    })
    .where('business_id', '=', arg('businessId')),
);

const dayQuery = (table: 'pending_by_day' | 'open_by_day') =>
  precompiled<{ businessId: string; dueDate: string; count: number; paise: number }, never>((db, arg) =>
    db
      .insertInto(table)
      .values({
        business_id: arg('businessId'),
        due_date: arg('dueDate'),
        due_count: arg('count'),
        due_paise: arg('paise'),
      })
      .onConflict((oc) =>
        oc.columns(['business_id', 'due_date']).doUpdateSet({
          due_count: sql`${sql.ref(`${table}.due_count`)} + ${arg('count')}`,
          due_paise: sql`${sql.ref(`${table}.due_paise`)} + ${arg('paise')}`,
        }),
      ),
  );
const addToDay = { pending_by_day: dayQuery('pending_by_day'), open_by_day: dayQuery('open_by_day') };

/** Day rows per statement when many days change at once (an import): well under SQLite's 32,766 bound values. */
const DAYS_PER_STATEMENT = 2000;

export async function applyTotals(db: Executor, businessId: string, d: TotalsDeltas): Promise<void> {
  const t = d.totals;
  if (Object.values(t).some((v) => v !== 0)) {
    await addToTotalsQuery(db, {
      businessId,
      pending_count: t.pending_count ?? 0,
      pending_paise: t.pending_paise ?? 0,
      overdue_count: t.overdue_count ?? 0,
      overdue_paise: t.overdue_paise ?? 0,
      paid_count: t.paid_count ?? 0,
      paid_paise: t.paid_paise ?? 0,
      contact_count: t.contact_count ?? 0,
      credit_paise: t.credit_paise ?? 0,
    });
  }
  await changeDays(db, 'pending_by_day', businessId, d.pendingDays ?? []);
  await changeDays(db, 'open_by_day', businessId, d.openDays ?? []);
  const month = d.paidMonth;
  if (month) {
    await db
      .insertInto('paid_by_month')
      .values({ business_id: businessId, month: month.month, due_count: month.count, due_paise: month.paise })
      .onConflict((oc) =>
        oc.columns(['business_id', 'month']).doUpdateSet({
          due_count: sql`paid_by_month.due_count + ${month.count}`,
          due_paise: sql`paid_by_month.due_paise + ${month.paise}`,
        }),
      )
      .execute();
  }
}

/** Adds each day's count and paise (one precompiled statement a day, or a few for many days), then deletes the days emptied. */
async function changeDays(
  db: Executor,
  table: 'pending_by_day' | 'open_by_day',
  businessId: string,
  days: readonly DayDelta[],
): Promise<void> {
  const changed = days.filter((x) => x.count !== 0 || x.paise !== 0);
  if (changed.length === 1) {
    const [day] = changed as [DayDelta];
    await addToDay[table](db, { businessId, dueDate: day.dueDate, count: day.count, paise: day.paise });
  } else {
    for (let start = 0; start < changed.length; start += DAYS_PER_STATEMENT) {
      await db
        .insertInto(table)
        .values(
          changed.slice(start, start + DAYS_PER_STATEMENT).map((x) => ({
            business_id: businessId,
            due_date: x.dueDate,
            due_count: x.count,
            due_paise: x.paise,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['business_id', 'due_date']).doUpdateSet({
            due_count: sql`${sql.ref(`${table}.due_count`)} + excluded.due_count`,
            due_paise: sql`${sql.ref(`${table}.due_paise`)} + excluded.due_paise`,
          }),
        )
        .execute();
    }
  }
  for (const day of changed) {
    if (day.count >= 0) continue;
    await db
      .deleteFrom(table)
      .where('business_id', '=', businessId)
      .where('due_date', '=', day.dueDate)
      .where('due_count', '<=', 0)
      .execute();
  }
}

/** The sweeper's move of a past day's pending dues to overdue. */
export async function movePendingToOverdue(
  db: Executor,
  businessId: string,
  dueDate: string,
  count: number,
  paise: number,
): Promise<void> {
  if (count === 0 && paise === 0) return;
  await applyTotals(db, businessId, {
    totals: { pending_count: -count, pending_paise: -paise, overdue_count: count, overdue_paise: paise },
    pendingDays: [{ dueDate, count: -count, paise: -paise }],
  });
}
