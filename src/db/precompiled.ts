import { type Compilable, CompiledQuery } from 'kysely';
import { isPostgres } from './dialect.js';
import { preparedStatement } from './postgres/queries.js';
import type { Executor } from './schema.js';

/** The stand-in for a value while the statement is compiled, found again among its parameters. */
const ARG_MARK = '\u0000arg:';

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
      const query = build(db, (name) => `${ARG_MARK}${name}` as never).compile();
      const slots = query.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(ARG_MARK) ? p.slice(ARG_MARK.length) : null,
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
