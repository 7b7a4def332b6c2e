import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, uniquePhone } from './helpers/harness.js';

// 12:00 in Kolkata; no background worker runs in the harness: the lag grows until a job runs.
const NOW = '2026-11-21T06:30:00.000Z';
const signal = new AbortController().signal;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

const readyz = async () => {
  const res = await h.request('GET', '/readyz');
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('GET /readyz', () => {
  it('reports the store and no lag while nothing waits', async () => {
    expect(await readyz()).toEqual({
      status: 'ready',
      store: 'reachable',
      workers: {
        webhooks: { oldest_due_at: null, lag_seconds: 0 },
        reminders: { oldest_due_at: null, lag_seconds: 0 },
      },
    });
  });

  it('reports how long the oldest due webhook work and the oldest due reminder have waited, and 0 once the workers catch up', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/transactions', {
      amount_paise: 10_000,
      due_date: '2026-11-24',
      contact_name: 'Lagging Buyer',
      contact_phone: uniquePhone(),
    });
    expect(created.status, created.text).toBe(201);
    const reminder = await h.store.db
      .selectFrom('reminders')
      .select('scheduled_for')
      .where('transaction_id', '=', created.body.data.id)
      .where('status', '=', 'scheduled')
      .orderBy('scheduled_for')
      .executeTakeFirstOrThrow();
    const reminderAt = new Date(reminder.scheduled_for);
    expect(reminderAt.getTime()).toBeGreaterThanOrEqual(Date.parse(NOW));

    // 90 s on: the event waits to be fanned out; the reminder is not yet due.
    h.clock.advance(90_000);
    const early = await readyz();
    expect(early.workers.webhooks).toEqual({ oldest_due_at: NOW, lag_seconds: 90 });
    expect(early.workers.reminders).toEqual({ oldest_due_at: null, lag_seconds: 0 });

    // Two minutes past the reminder's time, nothing having run.
    h.clock.set(new Date(reminderAt.getTime() + 120_000));
    const late = await readyz();
    expect(late.workers.reminders).toEqual({ oldest_due_at: reminderAt.toISOString(), lag_seconds: 120 });
    expect(late.workers.webhooks.lag_seconds).toBe((reminderAt.getTime() + 120_000 - Date.parse(NOW)) / 1000);

    // The workers run (the reminder sent makes an event, fanned out after it): nothing is due any more.
    await h.services.reminders.runDue(signal);
    await h.services.webhookDispatcher.run(signal);
    expect((await readyz()).workers).toEqual({
      webhooks: { oldest_due_at: null, lag_seconds: 0 },
      reminders: { oldest_due_at: null, lag_seconds: 0 },
    });
  });
});
