import { CompiledQuery, type Insertable } from 'kysely';
import type { Database, Executor } from './schema.js';

/** The stand-in for a row's value while the INSERT is compiled, found again among its parameters. */
const ARG_MARK = '\u0000arg:';

interface CompiledInsert {
  sql: string;
  /** for each bound parameter, the index of its value in the rows' flattened values */
  slots: number[];
}
const inserts = new Map<unknown, Map<string, CompiledInsert>>();
/** Distinct (table, columns, row count, conflict) shapes kept per dialect before starting over. */
const INSERT_SHAPES_KEPT = 512;

/** Bound values per INSERT: well under SQLite's (32,766) and PostgreSQL's (65,535) limits. */
const INSERT_VALUES_MAX = 8000;

/**
 * Inserts plain rows (every row with the same columns) with an INSERT compiled by Kysely once per
 * dialect, table, columns and row count, then run with new values: the write paths (a new due,
 * the webhook fan-out and attempt log) skip building the same statement again for every row.
 * Many rows go in statements of as many as the bound-value limit allows. `ignoreConflictOn` adds
 * ON CONFLICT (columns) DO NOTHING. Returns how many rows were inserted.
 */
export async function insertRows<T extends keyof Database & string>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  opts: { ignoreConflictOn?: readonly string[] } = {},
): Promise<number> {
  const first = rows[0];
  if (first === undefined) return 0;
  const columns = Object.keys(first);
  const perStatement = Math.max(1, Math.floor(INSERT_VALUES_MAX / columns.length));
  let inserted = 0;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.length <= perStatement ? rows : rows.slice(i, i + perStatement);
    inserted += await insertChunk(db, table, columns, chunk, opts);
  }
  return inserted;
}

async function insertChunk(
  db: Executor,
  table: string,
  columns: string[],
  rows: readonly object[],
  opts: { ignoreConflictOn?: readonly string[] },
): Promise<number> {
  const result = await db.executeQuery(compileInsert(db, table, columns, rows, opts));
  return Number(result.numAffectedRows ?? 0);
}

/** The INSERT of `rows` (one statement: at most the bound-value limit), compiled once per shape. */
function compileInsert(
  db: Executor,
  table: string,
  columns: string[],
  rows: readonly object[],
  opts: { ignoreConflictOn?: readonly string[] },
): CompiledQuery {
  const adapter = db.getExecutor().adapter.constructor;
  let byShape = inserts.get(adapter);
  if (!byShape) {
    byShape = new Map();
    inserts.set(adapter, byShape);
  }
  const shape = `${table}\u0000${columns.join(',')}\u0000${rows.length}\u0000${opts.ignoreConflictOn?.join(',') ?? ''}`;
  let compiled = byShape.get(shape);
  if (!compiled) {
    const marked = rows.map((_, r) =>
      Object.fromEntries(columns.map((column, c) => [column, `${ARG_MARK}${r * columns.length + c}`])),
    );
    let query = db.insertInto(table as keyof Database).values(marked as never);
    const conflict = opts.ignoreConflictOn;
    if (conflict) query = query.onConflict((oc) => oc.columns(conflict as never).doNothing());
    const { sql, parameters } = query.compile();
    const slots = parameters.map((p) => {
      if (typeof p !== 'string' || !p.startsWith(ARG_MARK))
        throw new Error(`insertRows: unexpected parameter ${String(p)}`);
      return Number(p.slice(ARG_MARK.length));
    });
    compiled = { sql, slots };
    if (byShape.size >= INSERT_SHAPES_KEPT) byShape.clear();
    byShape.set(shape, compiled);
  }
  const flat: unknown[] = [];
  for (const row of rows) {
    const values = row as Record<string, unknown>;
    for (const column of columns) {
      const value = values[column];
      if (value === undefined)
        throw new Error(`insertRows: ${table}.${column} is undefined (give null or leave it out of every row)`);
      flat.push(value);
    }
  }
  return CompiledQuery.raw(
    compiled.sql,
    compiled.slots.map((i) => flat[i]),
  );
}

/**
 * PostgreSQL: the INSERT of `rows` as a statement to send later with others (writeTogether), or
 * undefined when there are none. Only as many rows as one statement takes (the bound-value limit).
 */
export function insertRowsQuery<T extends keyof Database & string>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): CompiledQuery | undefined {
  const first = rows[0];
  if (first === undefined) return undefined;
  const columns = Object.keys(first);
  if (rows.length * columns.length > INSERT_VALUES_MAX) throw new Error(`insertRowsQuery: too many ${table} rows`);
  return compileInsert(db, table, columns, rows, {});
}
