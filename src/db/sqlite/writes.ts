import type { Insertable } from 'kysely';
import { insertRows } from '../insert-rows.js';
import type { Database, Executor } from '../schema.js';
import type { TableRows } from '../table-rows.js';
import type { TotalsDeltas } from '../totals-deltas.js';
import { Lease } from './driver.js';
import { applyTotals } from './totals.js';

/**
 * SQLite's insertEach (the group-commit driver): one prepared single-row INSERT run once per row
 * (Lease.runEach). Inside the driver's savepoint a multi-row INSERT is ~1.7x slower
 * (bench/bulk-floor.ts). Outside a transaction of the driver: multi-row INSERTs.
 */
export async function insertEach<T extends keyof Database & string>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  omit: readonly string[] = [],
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first).filter((c) => !omit.includes(c));
  let written = false;
  await db.getExecutor().provideConnection(async (connection) => {
    if (!(connection instanceof Lease) || connection.state === 'idle') return;
    connection.runEach(statementFor(table, columns), rows);
    written = true;
  });
  if (written) return;
  await insertRows(
    db,
    table,
    omit.length === 0 ? rows : rows.map((row) => pick(row as Record<string, unknown>, columns) as typeof row),
  );
}

function pick(row: Record<string, unknown>, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = row[c];
  return out;
}

const statements = new Map<string, string>();

function statementFor(table: string, columns: readonly string[]): string {
  const key = `${table}(${columns.join(',')})`;
  let text = statements.get(key);
  if (text === undefined) {
    for (const c of [table, ...columns])
      if (!/^[a-z_][a-z0-9_]*$/.test(c)) throw new Error(`insertEach: bad name ${c}`);
    const list = columns.map((c) => `"${c}"`).join(', ');
    text = `insert into "${table}" (${list}) values (${columns.map((c) => `@${c}`).join(', ')})`;
    statements.set(key, text);
  }
  return text;
}

/** Each table's rows (insertEach), then the totals' deltas: the same lock order as every writer. */
export async function writeRows(
  trx: Executor,
  writes: readonly TableRows[],
  totals?: { businessId: string; deltas: TotalsDeltas },
): Promise<void> {
  for (const w of writes) await insertEach(trx, w.table, w.rows, w.omit);
  if (totals) await applyTotals(trx, totals.businessId, totals.deltas);
}
