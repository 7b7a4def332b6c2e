import { type Compilable, CompiledQuery, type Insertable, PostgresAdapter, type RawBuilder, sql } from 'kysely';
import { preparedStatement } from './postgres/queries.js';
import type { Database, Executor } from './schema.js';

const MARK = '\u0000arg:';

/**
 * A query built and compiled by Kysely once (per dialect), then run with new argument values.
 * Building and compiling a query costs more than SQLite takes to answer a primary-key read, so the
 * reads on every request (the API key, one due) skip it. On PostgreSQL they are also named
 * prepared statements (db/postgres/queries.ts preparedStatement): planned once per connection. `build` receives `arg(name)`, a stand-in
 * for each value; it must use every stand-in as a bound parameter (not in a raw SQL string).
 */
export function precompiled<Args extends Record<string, unknown>, Row>(
  build: (db: Executor, arg: (name: keyof Args & string) => never) => Compilable<Row>,
): (db: Executor, args: Args) => Promise<Row[]> {
  const query = precompiledQuery(build, { prepared: true });
  return async (db, args) => (await db.executeQuery<Row>(query(db, args))).rows;
}

/**
 * precompiled's statement with the arguments bound, to send later (e.g. with others through
 * writeTogether); `prepared`: made a named prepared statement on PostgreSQL.
 */
export function precompiledQuery<Args extends Record<string, unknown>, Row = unknown>(
  build: (db: Executor, arg: (name: keyof Args & string) => never) => Compilable<Row>,
  opts: { prepared?: boolean } = {},
): (db: Executor, args: Args) => CompiledQuery<Row> {
  const byDialect = new Map<unknown, { sql: string; parameters: readonly unknown[]; slots: (string | null)[] }>();
  return (db, args) => {
    const adapter = db.getExecutor().adapter.constructor;
    let compiled = byDialect.get(adapter);
    if (!compiled) {
      const query = build(db, (name) => `${MARK}${name}` as never).compile();
      const slots = query.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(MARK) ? p.slice(MARK.length) : null,
      );
      compiled = { sql: query.sql, parameters: query.parameters, slots };
      byDialect.set(adapter, compiled);
      if (opts.prepared && isPostgres(db)) preparedStatement(query.sql);
    }
    const { sql, parameters, slots } = compiled;
    const values = parameters.map((p, i) => {
      const slot = slots[i];
      return slot === null || slot === undefined ? p : args[slot];
    });
    return CompiledQuery.raw(sql, values) as CompiledQuery<Row>;
  };
}

/** Whether `db` runs on PostgreSQL (for statements whose SQL differs by store). */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * A column the planner must not pick an index for: SQLite's `+column`. Only on SQLite, which
 * plans without statistics; PostgreSQL has them (and no unary + on dates and timestamps).
 */
export function offIndex<T>(db: Executor, column: string): RawBuilder<T> {
  return isPostgres(db) ? sql<T>`${sql.ref(column)}` : sql<T>`+${sql.ref(column)}`;
}

/**
 * A timestamp column as text to the store's full precision, for a cursor that is compared with the
 * column again (a list's `starting_after`): PostgreSQL keeps microseconds (its now() writes them),
 * which a value read through pg's Date would cut to milliseconds, putting the cursor before or
 * after its own row. SQLite stores the text itself.
 */
export function exactTime(db: Executor, column: string): RawBuilder<string> {
  return isPostgres(db) ? pgExactTime(sql.ref(column)) : sql<string>`${sql.ref(column)}`;
}

/** PostgreSQL: a timestamptz as ISO 8601 text in UTC, to the microsecond (exactTime). */
export function pgExactTime(x: RawBuilder<unknown> | ReturnType<typeof sql.ref>): RawBuilder<string> {
  return sql<string>`to_char(${x} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * `column IN (the values)` with all the values in one bound parameter, so that one precompiled
 * statement serves any number of them: a JSON array read by json_each on SQLite, an array
 * compared with = ANY on PostgreSQL. `values` is a stand-in (`arg`); give its value through
 * `listArg`.
 */
export function inList(db: Executor, column: string, values: never): RawBuilder<boolean> {
  return isPostgres(db)
    ? sql<boolean>`${sql.ref(column)} = any(${values})`
    : sql<boolean>`${sql.ref(column)} in (select value from json_each(${values}))`;
}

/** The value of an `inList` stand-in for this store. */
export function listArg(db: Executor, values: readonly (string | number)[]): never {
  return (isPostgres(db) ? values : JSON.stringify(values)) as never;
}

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
      Object.fromEntries(columns.map((column, c) => [column, `${MARK}${r * columns.length + c}`])),
    );
    let query = db.insertInto(table as keyof Database).values(marked as never);
    const conflict = opts.ignoreConflictOn;
    if (conflict) query = query.onConflict((oc) => oc.columns(conflict as never).doNothing());
    const { sql, parameters } = query.compile();
    const slots = parameters.map((p) => {
      if (typeof p !== 'string' || !p.startsWith(MARK))
        throw new Error(`insertRows: unexpected parameter ${String(p)}`);
      return Number(p.slice(MARK.length));
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
