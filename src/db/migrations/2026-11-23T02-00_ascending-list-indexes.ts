import type { Kysely } from 'kysely';

/**
 * The due-list indexes in ascending order, read backwards for "newest due date first" (SQLite and
 * PostgreSQL both walk an index in reverse for an ORDER BY that reverses every column). Declared
 * descending, each new due of a date went in at the front of that date's entries, where SQLite's
 * B-tree splits rewrite neighbouring pages too: about one WAL page per index and due under the
 * create load, against one per several dues when new entries go in at the end.
 */
const INDEXES = [
  ['transactions_business_due', ['business_id', 'due_date', 'created_at', 'id']],
  ['transactions_business_open_due', ['business_id', 'open', 'due_date', 'created_at', 'id']],
  ['transactions_business_contact_due', ['business_id', 'contact_id', 'due_date', 'created_at', 'id']],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, columns] of INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('transactions')
      .columns([...columns])
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, columns] of INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('transactions')
      .columns(columns.map((c, i) => (i >= columns.length - 3 ? `${c} desc` : c)))
      .execute();
  }
}
