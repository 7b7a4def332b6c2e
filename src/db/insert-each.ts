import type { Insertable } from 'kysely';
import { CompiledQuery } from 'kysely';
import { preparedStatement } from './postgres.js';
import { insertRows, isPostgres } from './precompiled.js';
import type { Database, Executor } from './schema.js';
import { Lease } from './sqlite/driver.js';

/**
 * Inserts many `rows` into one table inside the caller's transaction, each store its fastest way
 * (a bulk import's chunk: bench/bulk-floor.ts, bench/README.md). Every row has the same keys, and
 * no value is undefined (give null); `omit` names keys that are not columns.
 *
 * - SQLite (the group-commit driver): one prepared single-row INSERT run once per row
 *   (Lease.runEach). Inside the driver's savepoint a multi-row INSERT is ~1.7x slower.
 * - PostgreSQL: ONE statement for all the rows, their values as one JSON array
 *   (`insert ... select ... from json_populate_recordset(null::table, $1)`): the statement's text
 *   is fixed per table and columns (a named prepared statement, parsed once per connection), and
 *   the values cross as one string made by JSON.stringify. A multi-row VALUES with a bound
 *   parameter per value cost more to build and serialise in JavaScript (per value) and to parse
 *   and bind in the server (13,500 parameters per statement) than the rows took to insert. Each
 *   column's value is read by the column type's own input function, as a bound text parameter is.
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
  if (isPostgres(db)) {
    await db.executeQuery(insertJsonQuery(table, rows, omit) as CompiledQuery);
    return;
  }
  let written = false;
  await db.getExecutor().provideConnection(async (connection) => {
    if (!(connection instanceof Lease) || connection.state === 'idle') return;
    connection.runEach(statementFor('sqlite', table, columns), rows);
    written = true;
  });
  if (written) return;
  // Not inside a transaction of the SQLite driver: multi-row INSERTs.
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

/**
 * PostgreSQL: insertEach's statement for `rows` (undefined when there are none), to send later or
 * with others in one statement (db/precompiled.ts writeTogether).
 */
export function insertJsonQuery<T extends keyof Database & string>(
  table: T,
  rows: readonly Insertable<Database[T]>[],
  omit: readonly string[] = [],
): CompiledQuery | undefined {
  const first = rows[0];
  if (first === undefined) return undefined;
  const columns = Object.keys(first).filter((c) => !omit.includes(c));
  return CompiledQuery.raw(statementFor('postgres', table, columns), [JSON.stringify(rows)]);
}

const statements = new Map<string, string>();

function statementFor(store: 'sqlite' | 'postgres', table: string, columns: readonly string[]): string {
  const key = `${store}:${table}(${columns.join(',')})`;
  let text = statements.get(key);
  if (text === undefined) {
    for (const c of [table, ...columns])
      if (!/^[a-z_][a-z0-9_]*$/.test(c)) throw new Error(`insertEach: bad name ${c}`);
    const list = columns.map((c) => `"${c}"`).join(', ');
    if (store === 'sqlite') {
      text = `insert into "${table}" (${list}) values (${columns.map((c) => `@${c}`).join(', ')})`;
    } else {
      text = `insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", $1::json)`;
      preparedStatement(text);
    }
    statements.set(key, text);
  }
  return text;
}
