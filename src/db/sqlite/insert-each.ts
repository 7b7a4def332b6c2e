import type { Insertable } from 'kysely';
import { insertRows, isPostgres } from '../precompiled.js';
import type { Database, Executor } from '../schema.js';
import { Lease } from './driver.js';

/**
 * Inserts `rows` (every row with the same keys; `omit` names keys that are not columns) with one
 * prepared single-row INSERT run once per row (Lease.runEach), inside the caller's transaction on
 * the SQLite group-commit driver; on any other connection (PostgreSQL), as insertRows does. For a
 * bulk import: with better-sqlite3 this is the fastest way SQLite takes many rows (bench/bulk-floor.ts).
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
  if (!isPostgres(db))
    await db.getExecutor().provideConnection(async (connection) => {
      if (!(connection instanceof Lease) || connection.state === 'idle') return;
      connection.runEach(statementFor(table, columns), rows);
      written = true;
    });
  if (written) return;
  // Not inside a transaction of the SQLite driver (PostgreSQL): multi-row INSERTs.
  await insertRows(
    db,
    table,
    omit.length === 0 ? rows : rows.map((row) => pick(row as Record<string, unknown>, columns) as typeof row),
  );
}

const statements = new Map<string, string>();

function statementFor(table: string, columns: readonly string[]): string {
  const key = `${table}(${columns.join(',')})`;
  let text = statements.get(key);
  if (text === undefined) {
    for (const c of columns) if (!/^[a-z_][a-z0-9_]*$/.test(c)) throw new Error(`insertEach: bad column ${c}`);
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`;
    statements.set(key, text);
  }
  return text;
}

function pick(row: Record<string, unknown>, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = row[c];
  return out;
}
