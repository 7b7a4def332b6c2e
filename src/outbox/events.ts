import { insertRows } from '../db/insert-rows.js';
import type { Executor } from '../db/schema.js';
import { uuidv7 } from '../lib/ids.js';
import { signalOutbox } from './signal.js';

/** Every subscribable event name (SPEC part 6), in the order GET /v1/webhooks lists them. */
export const EVENT_TYPES = [
  'transaction.created',
  'transaction.updated',
  'transaction.paid',
  'transaction.deleted',
  'payment.received',
  'reminder.sent',
  'contact.created',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event to the outbox. Call it with the transaction of the change that caused the
 * event: a change that commits always has its event, a change that rolls back never does.
 */
export interface OutboxEvent {
  businessId: string;
  type: EventType;
  data: Record<string, unknown>;
  at: Date;
}

export async function recordEvent(trx: Executor, event: OutboxEvent): Promise<string> {
  return (await recordEvents(trx, [event]))[0] as string;
}

/** Several events in one statement (a bulk import: one event per due, as if each were created alone). */
export async function recordEvents(trx: Executor, events: readonly OutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = eventRows(events);
  await insertRows(trx, 'events', rows);
  await signalOutbox(trx);
  return rows.map((r) => r.id);
}

/**
 * The outbox rows of `events`, for a writer that inserts them itself along with other rows in
 * one statement (transactions/new-due.ts); it must then call signalOutbox in the same transaction.
 */
export function eventRows(events: readonly OutboxEvent[]) {
  // A batch's events usually share one moment (a bulk import's chunk): its text is made once.
  let at: Date | undefined;
  let atText = '';
  return events.map((event) => {
    if (event.at !== at) {
      at = event.at;
      atText = at.toISOString();
    }
    return {
      id: uuidv7(event.at.getTime()),
      business_id: event.businessId,
      type: event.type,
      payload: JSON.stringify(event.data),
      created_at: atText,
      dispatched_at: null,
    };
  });
}
