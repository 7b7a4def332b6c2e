import { sql } from 'kysely';
import type { Executor } from '../../db/schema.js';
import type { ExportKind } from './kinds.js';

/** Rows per page: a page is all the export holds in memory at once. */
export const EXPORT_PAGE = 1000;

/** Whether the store has this table (a kind for a feature whose migration has not run is skipped). */
export async function hasTable(db: Executor, table: string): Promise<boolean> {
  const tables = await db.introspection.getTables();
  return tables.some((t) => t.name === table);
}

/** One page of a kind's rows of the business, every column, after `after` in key order. */
export function exportPage(
  db: Executor,
  kind: ExportKind,
  businessId: string,
  after: string | null,
): Promise<Record<string, unknown>[]> {
  return db
    .selectFrom(sql.table(kind.table).as('t') as never)
    .selectAll()
    .where(sql.ref(`t.${kind.businessColumn ?? 'business_id'}`), '=', businessId)
    .$if(after !== null, (q) => q.where(sql.ref(`t.${kind.key}`), '>', after))
    .orderBy(sql.ref(`t.${kind.key}`))
    .limit(EXPORT_PAGE)
    .execute() as Promise<Record<string, unknown>[]>;
}
