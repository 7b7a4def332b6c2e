import { type SelectQueryBuilder, sql } from 'kysely';
import type { Executor } from '../schema.js';

/**
 * PostgreSQL's half of the store port (db/port.ts): the statements it writes its own way. Every
 * export here has its namesake in db/sqlite/statements.ts.
 */

type Select = SelectQueryBuilder<any, any, any>;

export function lockRows<Q extends Select>(query: Q, opts: { of?: string; skipLocked?: boolean }): Q {
  const locked = query.forUpdate(opts.of as never);
  return (opts.skipLocked ? locked.skipLocked() : locked) as Q;
}

export async function lockNow(query: Select, opts: { noKey?: boolean }): Promise<void> {
  await (opts.noKey ? query.forNoKeyUpdate() : query.forUpdate()).execute();
}

export async function lockTimeout(trx: Executor, seconds: number): Promise<void> {
  await sql`set local lock_timeout = ${sql.lit(`${seconds}s`)}`.execute(trx);
}

/**
 * One index lookup per number, made so by the query's shape (a LATERAL subquery with LIMIT 1 is
 * never flattened into a join): see bulk/repository.ts existingInvoiceNumbers.
 */
export async function usedInvoiceNumbers(db: Executor, businessId: string, numbers: string[]): Promise<string[]> {
  const { rows } = await usedInvoiceNumbersQuery(businessId, numbers).execute(db);
  return rows.map((r) => r.invoice_number);
}

/** usedInvoiceNumbers' statement (exported for its query-plan test). */
export function usedInvoiceNumbersQuery(businessId: string, numbers: string[]) {
  return sql<{ invoice_number: string }>`
    select n.invoice_number from unnest(${numbers}::text[]) as n(invoice_number)
    cross join lateral (
      select 1 from transactions t
      where t.business_id = ${businessId} and t.invoice_number = n.invoice_number and t.deleted_at is null
      limit 1
    ) as used`;
}

/** One import of a business at a time: a lock held to the end of the transaction. */
export async function lockImports(trx: Executor, businessId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`import:${businessId}`}))`.execute(trx);
}

/** The data version moves at commit, once per transaction (its deferred trigger): nothing per chunk. */
export function writingDuesInChunks<T>(
  _trx: Executor,
  _businessId: string,
  work: (chunkWritten: () => Promise<void>) => Promise<T>,
): Promise<T> {
  return work(async () => {});
}
