import { type CompiledQuery, sql } from 'kysely';
import { insertRowsQuery } from '../insert-rows.js';
import { precompiledQuery } from '../precompiled.js';
import type { Executor } from '../schema.js';
import type { TableRows } from '../table-rows.js';
import type { TotalsDeltas } from '../totals-deltas.js';
import { writeTogether } from './together.js';
import { totalsDeltasQuery } from './totals.js';

/** The due's INSERT, one precompiled statement per set of columns (a due's row always has the same). */
const byColumns = new Map<string, (db: Executor, args: Record<string, unknown>) => CompiledQuery>();

/**
 * Issue 26: one new due for a contact read before (DueCreation.createAlone (transactions/create.ts)), its other
 * rows and its totals in ONE statement, atomic by itself, sent without a transaction. The due's
 * contact_id is the contact's id only while the contact is still the business's with the name and
 * phone the due is written with and holds no credit, else NULL, which the column refuses (SQLSTATE
 * 23502): the whole statement writes nothing and the answer is 'contact changed'. The contact's row
 * is locked (FOR UPDATE) by that check, before the due is written, so a due is never written open
 * beside credit a concurrent receipt has just left.
 */
export async function writeDueForContact(
  db: Executor,
  row: Record<string, unknown>,
  omit: readonly string[],
  writes: readonly TableRows[],
  totals: { businessId: string; deltas: TotalsDeltas },
): Promise<'written' | 'contact changed'> {
  const columns = Object.keys(row).filter((c) => !omit.includes(c));
  const key = columns.join(',');
  let due = byColumns.get(key);
  if (!due) {
    due = precompiledQuery<Record<string, unknown>>((q, arg) =>
      q.insertInto('transactions').values({
        ...Object.fromEntries(columns.map((column) => [column, arg(column)])),
        contact_id: sql`(select c.id from contacts c where c.id = ${arg('contact_id')} and c.business_id = ${arg('business_id')}
      and c.name = ${arg('contact_name')} and c.phone is not distinct from ${arg('contact_phone')}
      and c.credit_paise = 0 for update)`,
      } as never),
    );
    byColumns.set(key, due);
  }
  const others = writes.flatMap((w) => insertRowsQuery(db, w.table, w.rows) ?? []);
  try {
    await writeTogether(db, [due(db, row), ...others], totalsDeltasQuery(totals.businessId, totals.deltas));
  } catch (error) {
    const e = error as { code?: unknown; table?: unknown; column?: unknown } | null;
    if (e?.code === '23502' && e.table === 'transactions' && e.column === 'contact_id') return 'contact changed';
    throw error;
  }
  return 'written';
}
