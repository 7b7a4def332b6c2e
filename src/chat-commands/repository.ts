import { sql } from 'kysely';
import { fuzzyQuery } from '../contacts/fuzzy.js';
import { contactNameKey } from '../contacts/name-key.js';
import { rarestFirst } from '../contacts/name-terms.js';
import { type ContactRow, findContactByNameKey, listContacts } from '../contacts/repository.js';
import type { Executor } from '../db/schema.js';

/** How many candidates an ambiguous name lists. */
export const MAX_CANDIDATES = 5;

/**
 * The contacts a name in a command may mean: the one with exactly that name (as on create,
 * case-insensitively), otherwise those whose every word matches within one typo (contacts/fuzzy.ts).
 */
export async function contactsNamed(
  db: Executor,
  businessId: string,
  name: string,
): Promise<{ exact: ContactRow | null; similar: ContactRow[] }> {
  const exact = await findContactByNameKey(db, businessId, contactNameKey(name));
  if (exact) return { exact, similar: [] };
  const words = fuzzyQuery(name);
  if (words === null) return { exact: null, similar: [] };
  const fuzzyName = await rarestFirst(db, businessId, words);
  const similar = await listContacts(db, businessId, { fuzzyName }, MAX_CANDIDATES + 1, 0);
  return { exact: null, similar };
}

export interface OpenDue {
  id: string;
  /** what is still owed on the due (its amount less its payments) */
  balance_paise: number;
  due_date: string;
}

/** A contact's open dues, oldest due date first (the order `paid` and `remind` take them in). */
export async function openDuesOldestFirst(db: Executor, businessId: string, contactId: string): Promise<OpenDue[]> {
  const rows = await db
    .selectFrom('transactions')
    .select(['id', 'amount_paise', 'amount_paid_paise', 'amount_adjusted_paise', 'due_date'])
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .where('open', '=', 1)
    .orderBy('due_date', 'asc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    due_date: r.due_date,
    balance_paise: Number(r.amount_paise) - Number(r.amount_paid_paise) - Number(r.amount_adjusted_paise),
  }));
}

export interface ContactBalance {
  name: string;
  paise: number;
}

/**
 * The contacts that owe the most: open dues' balances summed per contact, largest first; `overdueBefore`
 * (the business's today) keeps only dues whose date is before it (SPEC part 2's overdue rule).
 */
export async function largestBalances(
  db: Executor,
  businessId: string,
  limit: number,
  overdueBefore?: string,
): Promise<ContactBalance[]> {
  let q = db
    .selectFrom('transactions as t')
    .innerJoin('contacts as c', 'c.id', 't.contact_id')
    .select([
      'c.name as name',
      sql<number>`sum(t.amount_paise - t.amount_paid_paise - t.amount_adjusted_paise)`.as('paise'),
    ])
    .where('t.business_id', '=', businessId)
    .where('t.open', '=', 1);
  if (overdueBefore !== undefined) q = q.where('t.due_date', '<', overdueBefore);
  const rows = await q
    .groupBy(['c.id', 'c.name'])
    .orderBy(sql`sum(t.amount_paise - t.amount_paid_paise - t.amount_adjusted_paise)`, 'desc')
    .orderBy('c.name', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ name: r.name, paise: Number(r.paise) }));
}
