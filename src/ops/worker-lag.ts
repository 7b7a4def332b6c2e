import type { Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { oldestDueReminder } from '../reminders/lag-repository.js';
import { oldestWaiting } from '../webhooks/queue-repository.js';

export interface QueueLag {
  /** when the oldest waiting item came due (null: nothing waits) */
  oldest_due_at: string | null;
  /** how long it has waited, in seconds (0: nothing waits) */
  lag_seconds: number;
}

export interface WorkerLag {
  webhooks: QueueLag;
  reminders: QueueLag;
}

function lagOf(oldest: string | null, now: Date): QueueLag {
  if (oldest === null) return { oldest_due_at: null, lag_seconds: 0 };
  const at = new Date(oldest);
  return { oldest_due_at: at.toISOString(), lag_seconds: Math.max(0, (now.getTime() - at.getTime()) / 1000) };
}

/**
 * How far the background workers are behind: the oldest webhook work due (an event not yet fanned
 * out, or a delivery attempt past its time) and the oldest reminder due. A worker that keeps up
 * holds both near 0; one that is stopped or failing lets them grow. Four index reads.
 */
export async function workerLag(db: Executor, clock: Clock): Promise<WorkerLag> {
  const now = clock.now();
  const [webhook, reminder] = await Promise.all([
    oldestWaiting(db, now.toISOString()),
    oldestDueReminder(db, now.toISOString()),
  ]);
  return { webhooks: lagOf(webhook, now), reminders: lagOf(reminder, now) };
}

/** The reminders' part alone (the reminder_queue_lag_seconds gauge). */
export async function reminderLag(db: Executor, clock: Clock): Promise<QueueLag> {
  const now = clock.now();
  return lagOf(await oldestDueReminder(db, now.toISOString()), now);
}
