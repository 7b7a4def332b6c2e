import { type Kysely, sql } from 'kysely';

/**
 * A buyer's newest entries (statements/repository.ts `newest*`, the dashboard's buyer page) read
 * each kind of entry newest first in the statement's own order, which ends with the row's id (and
 * a receipt's creation within its received_on date). The contact's statement indexes ordered by
 * date alone, so both stores sorted the rows of one instant or one date: a day of receipts, or a
 * thousand dues imported at one instant, read whole to show fifty. Each index gains the columns
 * that finish the order and keeps its name; the statement's period reads use them as before.
 *
 * Same number of indexes as before: a new due or receipt writes no more B-trees.
 */
const INDEXES = [
  {
    name: 'transactions_contact_created',
    table: 'transactions',
    before: ['contact_id', 'created_at'],
    after: ['contact_id', 'created_at', 'id'],
    reversedOnly: false,
  },
  {
    name: 'receipts_contact_received',
    table: 'receipts',
    before: ['contact_id', 'received_on'],
    after: ['contact_id', 'received_on', 'created_at', 'id'],
    reversedOnly: false,
  },
  {
    name: 'receipts_contact_reversed',
    table: 'receipts',
    before: ['contact_id', 'reversed_at'],
    after: ['contact_id', 'reversed_at', 'id'],
    reversedOnly: true,
  },
  {
    name: 'adjustments_contact_created',
    table: 'adjustments',
    before: ['contact_id', 'created_at'],
    after: ['contact_id', 'created_at', 'id'],
    reversedOnly: false,
  },
] as const;

async function replace(db: Kysely<unknown>, index: (typeof INDEXES)[number], columns: readonly string[]) {
  await db.schema.dropIndex(index.name).execute();
  const create = db.schema
    .createIndex(index.name)
    .on(index.table)
    .columns([...columns]);
  // Only reversed receipts: the index stays as small as it was.
  await (index.reversedOnly ? create.where(sql.ref('reversed_at'), 'is not', null) : create).execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await replace(db, index, index.after);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await replace(db, index, index.before);
}
