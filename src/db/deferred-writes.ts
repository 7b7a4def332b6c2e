import type { Executor } from './schema.js';
import type { DayDelta, TotalsDeltas } from './totals-deltas.js';

/**
 * Writes that only add up, held back for the length of a piece of work in one database
 * transaction and then written once: a running total's deltas (summed per business and month) and
 * rows of append-only tables (the outbox's events). A bank statement's chunk records hundreds of
 * receipts; each would otherwise send its own totals update and event inserts, one round trip
 * each. Nothing in the work may read what is held back (totals, events): sums and appended rows
 * come out the same whenever they are written within the transaction.
 */
export class DeferredWrites {
  readonly totals = new Map<string, { businessId: string; deltas: TotalsDeltas }>();
  readonly rows = new Map<string, Record<string, unknown>[]>();
  /** What to run once after the rows are in (e.g. waking the outbox), by name. */
  readonly after = new Map<string, () => Promise<void>>();

  addTotals(businessId: string, d: TotalsDeltas): void {
    const key = `${businessId} ${d.paidMonth?.month ?? ''}`;
    const held = this.totals.get(key);
    this.totals.set(key, { businessId, deltas: held ? sum(held.deltas, d) : d });
  }

  addRows(table: string, rows: readonly Record<string, unknown>[], after?: { name: string; run: () => Promise<void> }) {
    const list = this.rows.get(table) ?? [];
    list.push(...rows);
    this.rows.set(table, list);
    if (after) this.after.set(after.name, after.run);
  }
}

const open = new WeakMap<object, DeferredWrites>();

/** The writes being held back for `db`'s transaction, if a piece of work defers them. */
export function deferredWritesOf(db: Executor): DeferredWrites | undefined {
  return open.get(db);
}

/**
 * Runs `work` with `db`'s additive writes held back, then hands them to `flush` (still in the
 * transaction). Nested calls join the outer one.
 */
export async function holdingWrites<T>(
  db: Executor,
  work: () => Promise<T>,
  flush: (held: DeferredWrites) => Promise<void>,
): Promise<T> {
  if (open.has(db)) return work();
  const held = new DeferredWrites();
  open.set(db, held);
  let result: T;
  try {
    result = await work();
  } finally {
    open.delete(db);
  }
  await flush(held);
  return result;
}

function sum(a: TotalsDeltas, b: TotalsDeltas): TotalsDeltas {
  const totals = { ...a.totals };
  for (const [column, value] of Object.entries(b.totals) as [keyof TotalsDeltas['totals'], number][]) {
    totals[column] = (totals[column] ?? 0) + value;
  }
  const pendingDays = days(a.pendingDays, b.pendingDays);
  const openDays = days(a.openDays, b.openDays);
  const paidMonth =
    a.paidMonth && b.paidMonth
      ? {
          month: a.paidMonth.month,
          count: a.paidMonth.count + b.paidMonth.count,
          paise: a.paidMonth.paise + b.paidMonth.paise,
        }
      : (a.paidMonth ?? b.paidMonth);
  return {
    totals,
    ...(pendingDays && { pendingDays }),
    ...(openDays && { openDays }),
    ...(paidMonth && { paidMonth }),
  };
}

/** Two lists of day deltas as one, each date once, in date order (the writers' lock order). */
function days(a: readonly DayDelta[] | undefined, b: readonly DayDelta[] | undefined): DayDelta[] | undefined {
  if (!a) return b ? [...b] : undefined;
  if (!b) return [...a];
  const byDay = new Map<string, DayDelta>();
  for (const d of [...a, ...b]) {
    const held = byDay.get(d.dueDate);
    byDay.set(d.dueDate, held ? { dueDate: d.dueDate, count: held.count + d.count, paise: held.paise + d.paise } : d);
  }
  return [...byDay.values()].sort((x, y) => (x.dueDate < y.dueDate ? -1 : x.dueDate > y.dueDate ? 1 : 0));
}
