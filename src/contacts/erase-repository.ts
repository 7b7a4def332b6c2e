import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { claimsOfContact, updateContact } from './repository.js';

/** Events read per page while looking for a contact's personal data. */
const PAGE = 500;
/** Ids per LIKE list: the contact's dues are matched a chunk at a time. */
const CHUNK = 100;

const likeText = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function contactDueIds(db: Executor, businessId: string, contactId: string) {
  return db
    .selectFrom('transactions')
    .select('id')
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .execute()
    .then((rows) => rows.map((r) => r.id));
}

/** As any change of name and phone (updateContact): its dues' updated_at moves with it, for syncing clients. */
export function eraseContactRow(db: Executor, businessId: string, contactId: string, nameKey: string, at: string) {
  return updateContact(
    db,
    businessId,
    contactId,
    { name: 'Erased buyer', name_key: nameKey, phone: null, phone_rev: null },
    at,
  );
}

export async function deleteNameTerms(db: Executor, contactId: string) {
  await db.deleteFrom('contact_name_terms').where('contact_id', '=', contactId).execute();
}

export async function deleteReplies(db: Executor, businessId: string, contactId: string): Promise<number> {
  const r = await db
    .deleteFrom('buyer_replies')
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The payer names remembered from bank narrations for the contact (matching by payer forgets them). */
export async function deletePayerNames(db: Executor, businessId: string, contactId: string): Promise<number> {
  const r = await db
    .deleteFrom('bank_payers')
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The claims on the contact's dues and account lose the reference the buyer typed (a UTR, a name). */
export async function clearClaimReferences(db: Executor, businessId: string, contactId: string): Promise<number> {
  const r = await db
    .updateTable('payment_claims')
    .set({ reference: null })
    .where('business_id', '=', businessId)
    .where('reference', 'is not', null)
    .where((eb) => claimsOfContact(eb, businessId, contactId))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Messages sent to the contact keep their record (delivery, cost) without the phone. */
export async function clearMessagePhones(db: Executor, contactId: string): Promise<number> {
  const r = await db
    .updateTable('chat_messages')
    .set({ phone: '' })
    .where('contact_id', '=', contactId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * The business's events whose stored payload mentions any of `texts` (the contact's id, name,
 * phone, its dues' ids), page by page by id.
 */
export async function* eventsMentioning(
  db: Executor,
  businessId: string,
  texts: readonly string[],
): AsyncGenerator<{ id: string; payload: string }> {
  for (let i = 0; i < texts.length; i += CHUNK) {
    const chunk = texts.slice(i, i + CHUNK);
    let after: string | null = null;
    for (;;) {
      const rows: { id: string; payload: string }[] = await db
        .selectFrom('events')
        .select(['id', 'payload'])
        .where('business_id', '=', businessId)
        .where((eb) => eb.or(chunk.map((t) => eb(sql`payload`, 'like', sql`${likeText(t)} escape '\\'`))))
        .$if(after !== null, (q) => q.where('id', '>', after as string))
        .orderBy('id')
        .limit(PAGE)
        .execute();
      yield* rows;
      if (rows.length < PAGE) break;
      after = (rows[rows.length - 1] as { id: string }).id;
    }
  }
}

export function setEventPayload(db: Executor, id: string, payload: string) {
  return db.updateTable('events').set({ payload }).where('id', '=', id).execute();
}

export function deliveriesOf(db: Executor, eventId: string) {
  return db.selectFrom('webhook_deliveries').select(['id', 'body']).where('event_id', '=', eventId).execute();
}

export function setDeliveryBody(db: Executor, id: string, body: string) {
  return db.updateTable('webhook_deliveries').set({ body }).where('id', '=', id).execute();
}

/** Stored replays of the business's requests (kept 24 hours) that mention the contact. */
export function idempotencyMentioning(db: Executor, businessId: string, contactId: string) {
  return db
    .selectFrom('idempotency_keys')
    .select(['operation', 'idempotency_key', 'response_body'])
    .where('business_id', '=', businessId)
    .where(sql`response_body`, 'like', likeText(contactId))
    .execute();
}

export function setIdempotencyBody(
  db: Executor,
  businessId: string,
  key: { operation: string; idempotency_key: string },
  body: string,
) {
  return db
    .updateTable('idempotency_keys')
    .set({ response_body: body })
    .where('business_id', '=', businessId)
    .where('operation', '=', key.operation)
    .where('idempotency_key', '=', key.idempotency_key)
    .execute();
}
