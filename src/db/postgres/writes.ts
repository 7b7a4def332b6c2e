import { CompiledQuery, type Insertable } from 'kysely';
import { insertRowsQuery } from '../insert-rows.js';
import type { Database, Executor } from '../schema.js';
import type { TableRows } from '../table-rows.js';
import type { TotalsDeltas } from '../totals-deltas.js';
import { preparedStatement } from './queries.js';
import { writeTogether } from './together.js';
import { totalsDeltasQuery } from './totals.js';

/**
 * PostgreSQL's insertEach: ONE statement for all the rows, their values as one JSON array
 * (`insert ... select ... from json_populate_recordset(null::table, $1)`): the statement's text is
 * fixed per table and columns (a named prepared statement, parsed once per connection), and the
 * values cross as one string made by JSON.stringify. A multi-row VALUES with a bound parameter per
 * value cost more to build and serialise in JavaScript (per value) and to parse and bind in the
 * server (13,500 parameters per statement) than the rows took to insert. Each column's value is
 * read by the column type's own input function, as a bound text parameter is.
 */
export async function insertEach<T extends keyof Database & string>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  omit: readonly string[] = [],
): Promise<void> {
  const query = insertJsonQuery(table, rows, omit);
  if (query) await db.executeQuery(query);
}

/** insertEach's statement for `rows` (undefined when there are none), to send with others in one statement. */
function insertJsonQuery(table: string, rows: readonly object[], omit: readonly string[]): CompiledQuery | undefined {
  const first = rows[0];
  if (first === undefined) return undefined;
  const columns = Object.keys(first).filter((c) => !omit.includes(c));
  return CompiledQuery.raw(statementFor(table, columns), [JSON.stringify(rows)]);
}

const statements = new Map<string, string>();

function statementFor(table: string, columns: readonly string[]): string {
  const key = `${table}(${columns.join(',')})`;
  let text = statements.get(key);
  if (text === undefined) {
    for (const c of [table, ...columns])
      if (!/^[a-z_][a-z0-9_]*$/.test(c)) throw new Error(`insertEach: bad name ${c}`);
    const list = columns.map((c) => `"${c}"`).join(', ');
    text = `insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", $1::json)`;
    preparedStatement(text);
    statements.set(key, text);
  }
  return text;
}

/**
 * Issue 26: every table's rows and then the totals' deltas in ONE statement of data-modifying
 * CTEs (writeTogether: one round trip instead of four). A single row's as VALUES (each shape a
 * prepared statement), many rows' as one JSON value per table (insertEach). The totals are the
 * last part, so their row is held for this statement and the COMMIT only.
 */
export async function writeRows(
  trx: Executor,
  writes: readonly TableRows[],
  totals?: { businessId: string; deltas: TotalsDeltas },
): Promise<void> {
  const single = writes[0]?.rows.length === 1;
  const queries: CompiledQuery[] = [];
  for (const w of writes) {
    const omit = w.omit ?? [];
    const query = single
      ? insertRowsQuery(trx, w.table, omit.length === 0 ? w.rows : w.rows.map((row) => without(row, omit)))
      : insertJsonQuery(w.table, w.rows, omit);
    if (query) queries.push(query);
  }
  const last = totals ? totalsDeltasQuery(totals.businessId, totals.deltas) : queries.pop();
  if (last) await writeTogether(trx, queries, last);
}

function without<R extends object>(row: R, omit: readonly string[]): R {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (!omit.includes(key)) out[key] = value;
  return out as R;
}
