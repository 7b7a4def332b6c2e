import type { InboundMessage } from '../channels/channel.js';
import type { Executor } from '../db/schema.js';
import * as repo from './repository.js';

export interface ReplyTarget {
  businessId: string;
  contactId: string;
}

/**
 * Which business a buyer's message is meant for. One phone may be a contact of many businesses,
 * and a reply (a promise, a UTR) is for one of them only: the business whose message it answers
 * (WhatsApp's context.id names it), else the business that last messaged that phone, else the only
 * business that has the phone as a contact. Anything else reaches no business: never one it was not
 * meant for. O(1) indexed reads, whatever the number of businesses.
 */
export async function replyTarget(db: Executor, message: InboundMessage): Promise<ReplyTarget | null> {
  if (message.contextId !== undefined) {
    const answered = await repo.findMessage(db, message.contextId);
    if (answered?.business_id && answered.phone === message.from) {
      return contactOf(db, answered.business_id, answered.contact_id, message.from);
    }
  }
  const last = await repo.lastToBuyer(db, message.from);
  if (last?.business_id) {
    const target = await contactOf(db, last.business_id, last.contact_id, message.from);
    if (target) return target;
  }
  const businesses = await repo.businessesWithContactPhone(db, message.from, 2);
  const [only] = businesses;
  return businesses.length === 1 && only ? contactOf(db, only, null, message.from) : null;
}

/** The message's contact if it still has that phone, else the business's oldest contact that has it. */
async function contactOf(
  db: Executor,
  businessId: string,
  contactId: string | null,
  phone: string,
): Promise<ReplyTarget | null> {
  const contacts = await repo.contactsWithPhone(db, businessId, phone);
  const chosen = contacts.find((c) => c.id === contactId) ?? contacts[0];
  return chosen ? { businessId, contactId: chosen.id } : null;
}

/** True when the message answers one we sent to a buyer: a reply, even from a business owner's phone. */
export async function answersBuyerMessage(db: Executor, message: InboundMessage): Promise<boolean> {
  if (message.contextId === undefined) return false;
  const answered = await repo.findMessage(db, message.contextId);
  return answered?.contact_id != null && answered.phone === message.from;
}
