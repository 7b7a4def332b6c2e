import { type Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './schema.js';

const MARK = '\u0000arg:';

/**
 * A query built and compiled by Kysely once (per dialect), then run with new argument values.
 * Building and compiling a query costs more than SQLite takes to answer a primary-key read, so the
 * reads on every request (the API key, one due) skip it. `build` receives `arg(name)`, a stand-in
 * for each value; it must use every stand-in as a bound parameter (not in a raw SQL string).
 */
export function precompiled<Args extends Record<string, unknown>, Row>(
  build: (db: Executor, arg: (name: keyof Args & string) => never) => Compilable<Row>,
): (db: Executor, args: Args) => Promise<Row[]> {
  const byDialect = new Map<unknown, { sql: string; parameters: readonly unknown[]; slots: (string | null)[] }>();
  return async (db, args) => {
    const adapter = db.getExecutor().adapter.constructor;
    let compiled = byDialect.get(adapter);
    if (!compiled) {
      const query = build(db, (name) => `${MARK}${name}` as never).compile();
      const slots = query.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(MARK) ? p.slice(MARK.length) : null,
      );
      compiled = { sql: query.sql, parameters: query.parameters, slots };
      byDialect.set(adapter, compiled);
    }
    const { sql, parameters, slots } = compiled;
    const values = parameters.map((p, i) => {
      const slot = slots[i];
      return slot === null || slot === undefined ? p : args[slot];
    });
    const result = await db.executeQuery<Row>(CompiledQuery.raw(sql, values));
    return result.rows;
  };
}
