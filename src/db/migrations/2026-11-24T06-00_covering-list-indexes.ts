import type { Kysely } from 'kysely';

/**
 * Issue 18: deep pages read from the index alone. An offset page first finds its ids by walking
 * the list's index (a deferred join, transactions/repository.ts), then reads only those rows; the
 * walk steps over up to a million entries, so every column its conditions read must be in the
 * index, or each skipped entry costs a table read (7 s at offset 800,000).
 *
 * - transactions_business_due, the unfiltered list's order, also holds `open` (the plain list
 *   leaves deleted dues out) and `updated_at` (an incremental sync that matches most dues walks
 *   this order and checks `since` on the way).
 * - transactions_business_contact_due also holds `open` (a contact's dues by status).
 * - transactions_business_updated also holds `open`: an incremental sync's count (and the count
 *   of the dues it does not match) reads the index alone.
 *
 * Same number of indexes as before: a new due writes no more B-trees.
 */
const INDEXES = [
  {
    name: 'transactions_business_due',
    before: ['business_id', 'due_date', 'created_at', 'id'],
    after: ['business_id', 'due_date', 'created_at', 'id', 'open', 'updated_at'],
  },
  {
    name: 'transactions_business_contact_due',
    before: ['business_id', 'contact_id', 'due_date', 'created_at', 'id'],
    after: ['business_id', 'contact_id', 'due_date', 'created_at', 'id', 'open'],
  },
  {
    name: 'transactions_business_updated',
    before: ['business_id', 'updated_at'],
    after: ['business_id', 'updated_at', 'open'],
  },
] as const;

async function replace(db: Kysely<unknown>, name: string, columns: readonly string[]) {
  await db.schema.dropIndex(name).execute();
  await db.schema
    .createIndex(name)
    .on('transactions')
    .columns([...columns])
    .execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await replace(db, index.name, index.after);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await replace(db, index.name, index.before);
}
