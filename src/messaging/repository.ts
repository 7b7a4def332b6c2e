import type { ChatMessageTable, Executor } from '../db/schema.js';

/** Delivery statuses only move forward (Meta can deliver "read" before "delivered"). */
export const DELIVERY_RANK: Readonly<Record<string, number>> = { sent: 1, delivered: 2, read: 3, failed: 4 };

export function insertMessage(db: Executor, row: ChatMessageTable) {
  return db
    .insertInto('chat_messages')
    .values(row)
    .onConflict((oc) => oc.column('provider_message_id').doNothing())
    .execute();
}

export function findMessage(db: Executor, providerMessageId: string) {
  return db
    .selectFrom('chat_messages')
    .selectAll()
    .where('provider_message_id', '=', providerMessageId)
    .executeTakeFirst();
}

export function updateMessage(
  db: Executor,
  id: string,
  patch: Partial<Pick<ChatMessageTable, 'delivery' | 'error_code' | 'category' | 'cost_millipaise' | 'updated_at'>>,
) {
  return db.updateTable('chat_messages').set(patch).where('id', '=', id).execute();
}

/**
 * The latest message a business sent to a contact with this phone: a reply that names no message
 * of ours belongs to that business (one indexed row whatever the number of businesses).
 */
export function lastToBuyer(db: Executor, phone: string) {
  return db
    .selectFrom('chat_messages')
    .select(['business_id', 'contact_id'])
    .where('phone', '=', phone)
    .where('business_id', 'is not', null)
    .where('contact_id', 'is not', null)
    .orderBy('sent_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The business's contacts with this phone (several are possible), oldest first. */
export function contactsWithPhone(db: Executor, businessId: string, phone: string) {
  return db
    .selectFrom('contacts')
    .select('id')
    .where('business_id', '=', businessId)
    .where('phone', '=', phone)
    .orderBy('created_at')
    .execute();
}

/** The businesses that have a contact with this phone, at most `limit`. */
export async function businessesWithContactPhone(db: Executor, phone: string, limit: number) {
  const rows = await db
    .selectFrom('contacts')
    .select('business_id')
    .distinct()
    .where('phone', '=', phone)
    .limit(limit)
    .execute();
  return rows.map((r) => r.business_id);
}

export function findPhone(db: Executor, phone: string) {
  return db.selectFrom('chat_phones').selectAll().where('phone', '=', phone).executeTakeFirst();
}

export async function isUnreachable(db: Executor, phone: string): Promise<boolean> {
  const row = await db
    .selectFrom('chat_phones')
    .select('phone')
    .where('phone', '=', phone)
    .where('unreachable_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** The phone wrote to us: it can receive, and the 24-hour customer-service window opens. */
export function markInbound(db: Executor, phone: string, at: string) {
  return db
    .insertInto('chat_phones')
    .values({ phone, last_inbound_at: at, unreachable_at: null })
    .onConflict((oc) => oc.column('phone').doUpdateSet({ last_inbound_at: at, unreachable_at: null }))
    .execute();
}

/** WhatsApp said the phone cannot receive (131026). */
export function markUnreachable(db: Executor, phone: string, at: string) {
  return db
    .insertInto('chat_phones')
    .values({ phone, last_inbound_at: null, unreachable_at: at })
    .onConflict((oc) => oc.column('phone').doUpdateSet({ unreachable_at: at }))
    .execute();
}

/** WhatsApp said the window is closed (131047): the next message is a template. */
export function closeWindow(db: Executor, phone: string) {
  return db.updateTable('chat_phones').set({ last_inbound_at: null }).where('phone', '=', phone).execute();
}

export function optOut(db: Executor, phone: string, at: string) {
  return db
    .insertInto('chat_opt_outs')
    .values({ phone, opted_out_at: at })
    .onConflict((oc) => oc.column('phone').doNothing())
    .execute();
}

/** One business's messages sent in [from, to), counted and costed by pricing category. */
export function usageByCategory(db: Executor, businessId: string, from: string, to: string) {
  return db
    .selectFrom('chat_messages')
    .select((eb) => [
      'category',
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.sum<number | string | null>('cost_millipaise').as('cost'),
    ])
    .where('business_id', '=', businessId)
    .where('sent_at', '>=', from)
    .where('sent_at', '<', to)
    .groupBy('category')
    .execute();
}

/** The cost of one business's reminders sent in [from, to), in thousandths of a paisa. */
export async function reminderCost(db: Executor, businessId: string, from: string, to: string): Promise<number> {
  const row = await db
    .selectFrom('chat_messages')
    .select((eb) => eb.fn.sum<number | string | null>('cost_millipaise').as('cost'))
    .where('business_id', '=', businessId)
    .where('sent_at', '>=', from)
    .where('sent_at', '<', to)
    .where('purpose', '=', 'reminder')
    .executeTakeFirst();
  return Number(row?.cost ?? 0);
}

/**
 * Payments received in [from, to) on dues that had a reminder sent (since `remindedFrom`) before the
 * payment. Walks the business's reminder messages of the period by index, then each reminded due's
 * payments by index: O(reminders of the period), never O(the business's payments).
 */
export async function collectedAfterReminders(
  db: Executor,
  businessId: string,
  span: { remindedFrom: string; from: string; to: string },
): Promise<number> {
  const row = await db
    .with('reminded', (w) =>
      w
        .selectFrom('chat_messages as m')
        .innerJoin('reminders as r', 'r.id', 'm.reminder_id')
        .select((eb) => ['r.transaction_id', eb.fn.min('m.sent_at').as('first_at')])
        .where('m.business_id', '=', businessId)
        .where('m.purpose', '=', 'reminder')
        .where('m.sent_at', '>=', span.remindedFrom)
        .where('m.sent_at', '<', span.to)
        .groupBy('r.transaction_id'),
    )
    .selectFrom('reminded')
    .innerJoin('payments as p', 'p.transaction_id', 'reminded.transaction_id')
    .select((eb) => eb.fn.sum<number | string | null>('p.amount_paise').as('paise'))
    .where('p.created_at', '>=', span.from)
    .where('p.created_at', '<', span.to)
    .whereRef('p.created_at', '>=', 'reminded.first_at')
    .executeTakeFirst();
  return Number(row?.paise ?? 0);
}
