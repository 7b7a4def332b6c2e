import { describe, expect, it } from 'vitest';
import { createMetrics } from '../http/metrics.js';
import type { ReminderService } from '../reminders/service.js';
import { reminderScheduler } from './reminder-scheduler.js';

function job(batches: { outcomes: string[]; waitMs: number }[]) {
  const reminders = {
    runDueBatch: async () => batches.shift() ?? { outcomes: [], waitMs: 0 },
  } as unknown as ReminderService;
  return reminderScheduler({ reminders, metrics: createMetrics() });
}

describe('reminder-scheduler job', () => {
  const signal = new AbortController().signal;

  it('is idle when nothing is due and nothing waits on the pace', async () => {
    expect(await job([{ outcomes: [], waitMs: 0 }]).runOnce(signal)).toBe(0);
  });

  it('is not idle while steps wait on the pace, even when this run sent none', async () => {
    expect(await job([{ outcomes: [], waitMs: 1 }]).runOnce(signal)).toBe(1);
    expect(await job([{ outcomes: ['sent', 'sent'], waitMs: 1 }]).runOnce(signal)).toBe(2);
  });
});
