import type { Executor } from '../db/schema.js';
import { localDate } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import { recordEvent } from '../outbox/events.js';
import { transactionEventData } from '../transactions/presenter.js';
import { lockTransaction, updateTransaction } from '../transactions/repository.js';
import { parsePromiseDate } from './promise-date.js';

/**
 * PRODUCT part 13: a buyer's chat reply (any message that is not a command, from a contact's
 * phone). It is kept for the business to read; when it names a date, a promise to pay by that date
 * is recorded on the contact's oldest open due, which holds that due's reminders (reason
 * `promised`) until the day after. An unclear reply changes nothing else. One phone may be a
 * contact of several businesses: each gets the reply. Runs in the caller's transaction, the one
 * that marks the message seen, so a redelivered webhook records nothing twice.
 */
export async function recordBuyerReply(
  trx: Executor,
  message: { id: string; from: string; text: string },
  now: Date,
): Promise<number> {
  const contacts = await trx
    .selectFrom('contacts')
    .innerJoin('businesses', 'businesses.id', 'contacts.business_id')
    .select(['contacts.id', 'contacts.business_id', 'businesses.timezone'])
    .where('contacts.phone', '=', message.from)
    .execute();
  let promises = 0;
  for (const contact of contacts) {
    const today = localDate(contact.timezone, now);
    const promised = parsePromiseDate(message.text, today);
    const dueId = promised === null ? null : await oldestOpenDue(trx, contact.id);
    if (promised !== null && dueId !== null) {
      const due = await lockTransaction(trx, contact.business_id, dueId);
      if (due && due.open === 1) {
        const change = { promise_date: promised, promise_made_at: now.toISOString(), updated_at: now.toISOString() };
        await updateTransaction(trx, contact.business_id, due.id, change);
        await recordEvent(trx, {
          businessId: contact.business_id,
          type: 'transaction.updated',
          data: transactionEventData({ ...due, ...change }, today),
          at: now,
        });
        promises++;
      }
    }
    await trx
      .insertInto('buyer_replies')
      .values({
        id: uuidv7(now.getTime()),
        business_id: contact.business_id,
        contact_id: contact.id,
        message_id: message.id,
        text: message.text.slice(0, 4096),
        transaction_id: promised === null ? null : dueId,
        promise_date: dueId === null ? null : promised,
        received_at: now.toISOString(),
      })
      .execute();
  }
  return promises;
}

async function oldestOpenDue(db: Executor, contactId: string): Promise<string | null> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('contact_id', '=', contactId)
    .where('open', '=', 1)
    .orderBy('due_date')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}
