import { listAuditEntries } from '../audit/read.js';
import { recordAudit } from '../audit/record.js';
import { redactAuditEntity } from '../audit/redact.js';
import type { Db, Executor } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import * as repo from './erase-repository.js';
import { ERASED_NAME, erasedNameKey, redactJsonText } from './redact.js';
import { findContact } from './repository.js';

export interface EraseResult {
  contact_id: string;
  events: number;
  deliveries: number;
  replies: number;
  claims: number;
  messages: number;
  replays: number;
}

/**
 * Erases a buyer's personal data (PRODUCT part 24), in one database transaction: the contact is
 * renamed "Erased buyer" with a name key no name can make (redact.ts: outside the name
 * uniqueness, never found by name) and loses its phone, its fuzzy-search terms and the payer
 * names remembered for it from bank narrations; its chat
 * replies are deleted, the references typed on its claims cleared, the phone of the messages
 * sent to it cleared; and its name and phone are redacted in the stored events, in the webhook
 * deliveries carrying them, and in the stored replays of requests (the one change events ever
 * get). Money records are not touched: the dues, payments and claims stay, with their amounts,
 * so every total stays exact (`verify` agrees after an erase).
 */
export async function eraseContact(
  deps: { db: Db; clock: Clock },
  businessId: string,
  contactId: string,
): Promise<EraseResult> {
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const contact = await findContact(trx, businessId, contactId);
    if (!contact) throw errors.notFound('contact');
    // The buyers merged into this one were the same person under another name or phone.
    const absorbed = await mergedInto(trx, businessId, contactId);
    const personal = {
      names: [contact.name, ...absorbed.flatMap((c) => (c.name === null ? [] : [c.name]))],
      phones: [contact.phone, ...absorbed.map((c) => c.phone)].filter((p): p is string => p !== null),
    };
    const dueIds = await repo.contactDueIds(trx, businessId, contactId);
    await repo.eraseContactRow(trx, businessId, contactId, erasedNameKey(contactId), at);
    // Its audit entries (and those of the buyers merged into it) keep what changed, without who
    // the buyer was; then the erase's own entry.
    for (const id of [contactId, ...absorbed.map((c) => c.id)]) {
      await redactAuditEntity(trx, businessId, 'contact', id, {
        name: (v) => (v === null ? null : ERASED_NAME),
        phone: () => null,
      });
    }
    await recordAudit(trx, businessId, at, [
      {
        action: 'contact.erased',
        entity: 'contact',
        entityId: contactId,
        changes: { erased: [false, true] },
      },
    ]);
    await repo.deleteNameTerms(trx, contactId);
    await repo.deletePayerNames(trx, businessId, contactId);
    const result: EraseResult = {
      contact_id: contactId,
      events: 0,
      deliveries: 0,
      replies: await repo.deleteReplies(trx, businessId, contactId),
      claims: await repo.clearClaimReferences(trx, businessId, contactId),
      messages: await repo.clearMessagePhones(trx, contactId),
      replays: 0,
    };
    const mentions = [
      contactId,
      ...absorbed.map((c) => c.id),
      ...absorbed.flatMap((c) => (c.name === null ? [] : [JSON.stringify(c.name).slice(1, -1)])),
      ...dueIds,
      ...(contact.name === 'Erased buyer' ? [] : [JSON.stringify(contact.name).slice(1, -1)]),
      ...personal.phones,
    ];
    const seen = new Set<string>();
    for await (const event of repo.eventsMentioning(trx, businessId, mentions)) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      const payload = redactJsonText(event.payload, personal);
      if (payload === event.payload) continue;
      await repo.setEventPayload(trx, event.id, payload);
      result.events++;
      for (const delivery of await repo.deliveriesOf(trx, event.id)) {
        const body = redactJsonText(delivery.body, personal);
        if (body === delivery.body) continue;
        await repo.setDeliveryBody(trx, delivery.id, body);
        result.deliveries++;
      }
    }
    for (const replay of await repo.idempotencyMentioning(trx, businessId, contactId)) {
      const body = redactJsonText(replay.response_body, personal);
      if (body === replay.response_body) continue;
      await repo.setIdempotencyBody(trx, businessId, replay, body);
      result.replays++;
    }
    return result;
  });
}

/** Audit entries of one contact read per page while looking for merges. */
const PAGE = 200;

/**
 * The buyers merged into `contactId` (contact-merge writes `contact.merged` on the kept buyer and
 * `contact.merged_away` with the merged one's name and phone), and the buyers merged into those,
 * each with the name and phone it had. Read from the audit log by the entity index; bounded by the
 * contacts' own entries.
 */
async function mergedInto(
  trx: Executor,
  businessId: string,
  contactId: string,
): Promise<{ id: string; name: string | null; phone: string | null }[]> {
  const found: { id: string; name: string | null; phone: string | null }[] = [];
  const seen = new Set([contactId]);
  const queue = [contactId];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    let startingAfter: string | undefined;
    for (;;) {
      const page = await listAuditEntries(trx, businessId, {
        entity: 'contact',
        entityId: next,
        startingAfter,
        limit: PAGE,
      });
      for (const entry of page) {
        const merged = entry.action === 'contact.merged' ? entry.changes.merged_contact_id?.[1] : undefined;
        if (typeof merged === 'string' && !seen.has(merged)) {
          seen.add(merged);
          queue.push(merged);
        }
        if (entry.action === 'contact.merged_away' && next !== contactId) {
          const name = entry.changes.name?.[0];
          const phone = entry.changes.phone?.[0];
          found.push({
            id: next,
            name: typeof name === 'string' ? name : null,
            phone: typeof phone === 'string' ? phone : null,
          });
        }
      }
      if (page.length < PAGE) break;
      startingAfter = page[page.length - 1]?.id;
    }
  }
  return found;
}
