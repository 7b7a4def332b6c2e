import { sql } from 'kysely';
import type { Executor } from '../../db/schema.js';
import { addFigures, compareFigures, type VerifyCheck } from './check.js';
import { balanceOf, type DueRow, duesOf } from './rows.js';

type Table = 'pending_by_day' | 'open_by_day';
type Days = Map<string, Record<string, number>>;

/** Which open dues a day table counts: stored-pending ones (pending_by_day) or every open one (open_by_day). */
const COUNTS: Record<Table, (due: DueRow) => boolean> = {
  pending_by_day: (due) => due.open === 1 && due.deleted_at === null && due.status === 'pending',
  open_by_day: (due) => due.open === 1 && due.deleted_at === null,
};

/** A due's part of a day table: one due and its balance on its due date, when the table counts it. */
export function addDueToDays(table: Table, days: Days, due: DueRow): void {
  if (!COUNTS[table](due)) return;
  addFigures(days, `day ${due.due_date}`, { due_count: 1, due_paise: balanceOf(due) });
}

async function keptDays(db: Executor, table: Table, businessId: string): Promise<Days> {
  // Summed over the shards (PostgreSQL); a day's rows may sum to 0 and stay: compareFigures reads
  // a missing day as 0.
  const rows = await db
    .selectFrom(table)
    .select(['due_date', sql<number>`sum(due_count)`.as('due_count'), sql<number>`sum(due_paise)`.as('due_paise')])
    .where('business_id', '=', businessId)
    .groupBy('due_date')
    .execute();
  const days: Days = new Map();
  for (const r of rows) {
    addFigures(days, `day ${r.due_date}`, { due_count: Number(r.due_count), due_paise: Number(r.due_paise) });
  }
  return days;
}

function dayCheck(table: Table, describes: string): VerifyCheck {
  return {
    name: table,
    describes,
    async run(db, business) {
      const expected: Days = new Map();
      for await (const due of duesOf(db, business.id)) addDueToDays(table, expected, due);
      return compareFigures(table, business.id, await keptDays(db, table, business.id), expected);
    },
  };
}

export const pendingByDayCheck = dayCheck(
  'pending_by_day',
  'stored-pending dues and their balances per due date, from the dues',
);
export const openByDayCheck = dayCheck(
  'open_by_day',
  'open dues and their balances per due date (the aging buckets), from the dues',
);
