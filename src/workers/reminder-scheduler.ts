import type { Metrics } from '../http/metrics.js';
import type { ReminderService } from '../reminders/service.js';
import type { Job } from './runner.js';

/**
 * Sends automatic reminders when they come due (PRODUCT part 6). Each run leases a batch of due
 * reminders (FOR UPDATE SKIP LOCKED on PostgreSQL), so several worker processes never send the
 * same one; protections move a reminder to its next allowed time or cancel it.
 */
export function reminderScheduler(deps: { reminders: ReminderService; metrics: Metrics }, idleMs = 15_000): Job {
  return {
    name: 'reminder-scheduler',
    idleMs,
    async runOnce(signal) {
      const outcomes = await deps.reminders.runDue(signal);
      for (const outcome of outcomes) deps.metrics.reminders.inc({ outcome });
      return outcomes.length;
    },
  };
}
