import type { Executor } from '../../db/schema.js';

/** The business a check recomputes: its id and the time zone its months and days are counted in. */
export interface BusinessScope {
  id: string;
  timezone: string;
}

/** A kept figure that disagrees with its recomputation from the rows. */
export interface Difference {
  /** the check that found it (VerifyCheck.name) */
  check: string;
  business_id: string;
  /** what holds the figure: `totals`, `day 2026-11-20`, `month 2026-11`, `due <id>`, `contact <id>` */
  subject: string;
  field: string;
  /** the stored value (null: no row holds it) */
  kept: number | string | null;
  /** what the rows say it should be (null: no row should hold it) */
  expected: number | string | null;
}

/**
 * One kept figure's check: reads the business's rows, recomputes the figure with a pure function,
 * reads what is kept, and answers every difference (none: they agree). Checks are independent:
 * each reads what it needs, so a new kept figure is a new file added to CHECKS (verify/index.ts).
 * Memory: at most what one business's recomputed figures take (days, months, contacts), never its
 * rows: rows are read in pages (keyset).
 */
export interface VerifyCheck {
  readonly name: string;
  /** one line for people: what is recomputed from what */
  readonly describes: string;
  run(db: Executor, business: BusinessScope): Promise<Difference[]>;
}

type Figures = Record<string, number>;

/**
 * Compares kept figures with recomputed ones, key by key (`subject` -> field -> value). A key
 * missing on one side counts as 0 there: stores may or may not keep a row whose figures are all 0
 * (PostgreSQL's shards, SQLite's emptied days).
 */
export function compareFigures(
  check: string,
  businessId: string,
  kept: ReadonlyMap<string, Figures>,
  expected: ReadonlyMap<string, Figures>,
): Difference[] {
  const out: Difference[] = [];
  const subjects = [...new Set([...kept.keys(), ...expected.keys()])].sort();
  for (const subject of subjects) {
    const k = kept.get(subject) ?? {};
    const e = expected.get(subject) ?? {};
    for (const field of [...new Set([...Object.keys(k), ...Object.keys(e)])].sort()) {
      const a = k[field] ?? 0;
      const b = e[field] ?? 0;
      if (a !== b) out.push({ check, business_id: businessId, subject, field, kept: a, expected: b });
    }
  }
  return out;
}

/** Adds `figures` into the entry `subject` of `into` (made on first use). */
export function addFigures(into: Map<string, Figures>, subject: string, figures: Figures): void {
  const entry = into.get(subject) ?? {};
  for (const [field, value] of Object.entries(figures)) entry[field] = (entry[field] ?? 0) + value;
  into.set(subject, entry);
}

/** Rows read per page by the checks. */
export const PAGE = 2000;

/**
 * Every row of a query, page by page, by a unique key (`page(after)` answers the rows after
 * `after` in key order, at most PAGE; a key of two columns is compared as a row value, `(a, b) >
 * (x, y)`): a check's memory does not grow with the rows it reads.
 */
export async function* keyset<Row, Key = string>(
  page: (after: Key | null) => Promise<Row[]>,
  key: (row: Row) => Key,
): AsyncGenerator<Row> {
  let after: Key | null = null;
  for (;;) {
    const rows = await page(after);
    yield* rows;
    if (rows.length < PAGE) return;
    after = key(rows[rows.length - 1] as Row);
  }
}
