import { lockedRows } from '../db/port.js';
import type { Executor } from '../db/schema.js';

/**
 * The bucket's row, locked until the transaction ends (PostgreSQL: FOR UPDATE, so processes
 * sharing the database take turns; SQLite has one writer). Created full on first use.
 */
export async function lockBucket(db: Executor, name: string, full: number, at: string) {
  await db
    .insertInto('chat_send_pace')
    .values({ name, tokens: full, updated_at: at })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return db
    .selectFrom('chat_send_pace')
    .select(['tokens', 'updated_at'])
    .where('name', '=', name)
    .$call(lockedRows(db))
    .executeTakeFirstOrThrow();
}

export function saveBucket(db: Executor, name: string, tokens: number, at: string) {
  return db.updateTable('chat_send_pace').set({ tokens, updated_at: at }).where('name', '=', name).execute();
}
