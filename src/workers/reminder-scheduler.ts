import { setTimeout as sleep } from 'node:timers/promises';
import type { Metrics } from '../http/metrics.js';
import type { ReminderService } from '../reminders/service.js';
import type { Job } from './runner.js';

/** Steps one run claims at most: a fraction of a second's pace, so the batch leaves in step with it. */
const BATCH = 20;

/**
 * Sends automatic reminders when they come due (PRODUCT part 6). Each run leases a batch of due
 * reminders (FOR UPDATE SKIP LOCKED on PostgreSQL), so several worker processes never send the
 * same one; protections move a reminder to its next allowed time or cancel it. When the number's
 * pace (WHATSAPP_MESSAGES_PER_SECOND, shared with every other process) holds steps back, the run
 * waits for the next token and goes again at once rather than idling: the 10:00 burst leaves at
 * the pace, a step late by the time the steps before it took.
 */
export function reminderScheduler(deps: { reminders: ReminderService; metrics: Metrics }, idleMs = 15_000): Job {
  return {
    name: 'reminder-scheduler',
    idleMs,
    async runOnce(signal) {
      const { outcomes, waitMs } = await deps.reminders.runDueBatch(signal, { limit: BATCH });
      for (const outcome of outcomes) deps.metrics.reminders.inc({ outcome });
      if (waitMs === 0) return outcomes.length;
      await sleep(Math.min(waitMs, 1000), undefined, { signal }).catch(() => undefined);
      // Steps are waiting on the pace: not idle.
      return Math.max(1, outcomes.length);
    },
  };
}
