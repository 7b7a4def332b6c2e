import type { Executor } from '../db/schema.js';
import { nextUpdatedAt } from '../db/updated-at.js';
import { localDate } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import type { ReplyTarget } from '../messaging/routing.js';
import { recordEvent } from '../outbox/events.js';
import { transactionEventData } from '../transactions/presenter.js';
import { lockTransaction, updateTransaction } from '../transactions/repository.js';
import { parsePromiseDate } from './promise-date.js';

/**
 * PRODUCT part 13: a buyer's chat reply (any message that is not a command), for the one business
 * it is meant for (messaging/routing.ts: never another). It is kept for that business to read;
 * when it names a date, a promise to pay by that date is recorded on the contact's oldest open due,
 * which holds that due's reminders (reason `promised`) until the day after. An unclear reply
 * changes nothing else. Runs in the caller's transaction, the one that marks the message seen, so
 * a redelivered webhook records nothing twice. Returns whether a promise was recorded.
 */
export async function recordBuyerReply(
  trx: Executor,
  message: { id: string; from: string; text: string },
  target: ReplyTarget,
  now: Date,
): Promise<boolean> {
  const business = await trx
    .selectFrom('businesses')
    .select('timezone')
    .where('id', '=', target.businessId)
    .executeTakeFirstOrThrow();
  const today = localDate(business.timezone, now);
  const promised = parsePromiseDate(message.text, today);
  const dueId = promised === null ? null : await oldestOpenDue(trx, target.contactId);
  let recorded = false;
  if (promised !== null && dueId !== null) {
    const due = await lockTransaction(trx, target.businessId, dueId);
    if (due && due.open === 1) {
      const change = {
        promise_date: promised,
        promise_made_at: now.toISOString(),
        updated_at: nextUpdatedAt(due.updated_at, now),
      };
      await updateTransaction(trx, target.businessId, due.id, change);
      await recordEvent(trx, {
        businessId: target.businessId,
        type: 'transaction.updated',
        data: transactionEventData({ ...due, ...change }, today),
        at: now,
      });
      recorded = true;
    }
  }
  await trx
    .insertInto('buyer_replies')
    .values({
      id: uuidv7(now.getTime()),
      business_id: target.businessId,
      contact_id: target.contactId,
      message_id: message.id,
      text: message.text.slice(0, 4096),
      transaction_id: promised === null ? null : dueId,
      promise_date: dueId === null ? null : promised,
      received_at: now.toISOString(),
    })
    .execute();
  return recorded;
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
