import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { createMetrics } from '../src/http/metrics.js';
import { instantAt } from '../src/lib/dates.js';
import { overdueSweeper } from '../src/workers/overdue-sweeper.js';
import { reminderScheduler } from '../src/workers/reminder-scheduler.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

const HOUR = 60 * 60 * 1000;
const TZ = 'Asia/Kolkata';
/** These tests look at part 6's single reminder on the due date: a sequence of that one step. */
const ONE_STEP = { reminderSteps: '0' };

let h: Harness;
let channel: LogChannel;
const signal = new AbortController().signal;

beforeAll(async () => {
  h = await startHarness({ now: '2011-05-01T03:30:00.000Z' }); // 09:00 in Kolkata
  channel = h.services.channel as LogChannel;
});
afterAll(() => h.close());

let phoneSeq = 0;
function freshPhone(): string {
  phoneSeq += 1;
  return `+91 87${String(process.pid % 1000).padStart(3, '0')}${String(phoneSeq).padStart(5, '0')}`;
}

async function newDue(biz: TestBusiness, dueDate: string, extra: Record<string, unknown> = {}) {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 50_000,
    due_date: dueDate,
    contact_name: `Buyer ${Math.random().toString(36).slice(2, 8)}`,
    contact_phone: freshPhone(),
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

function remindersOf(transactionId: string) {
  return h.store.db
    .selectFrom('reminders')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .execute();
}

async function automaticOf(transactionId: string) {
  const rows = (await remindersOf(transactionId)).filter((r) => r.kind === 'automatic');
  expect(rows).toHaveLength(1);
  return rows[0] as (typeof rows)[number];
}

/**
 * Runs the scheduler for these businesses until it has nothing left to do now, as the worker loop
 * does. On PostgreSQL all test files of a run share one database, so a test only ever runs the
 * scheduler over its own businesses.
 */
async function runScheduler(...businesses: TestBusiness[]) {
  let total = 0;
  for (let i = 0; i < 20; i++) {
    let handled = 0;
    for (const biz of businesses) {
      handled += (await h.services.reminders.runDue(signal, { businessId: biz.business.id })).length;
    }
    total += handled;
    if (handled === 0) return total;
  }
  throw new Error('scheduler did not settle');
}

async function sentEvents(businessId: string) {
  const rows = await h.store.db
    .selectFrom('events')
    .select('payload')
    .where('business_id', '=', businessId)
    .where('type', '=', 'reminder.sent')
    .execute();
  return rows.map((r) => JSON.parse(r.payload));
}

describe('automatic reminders', () => {
  it('schedules 10:00 local on the due date and sends it then, not before', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-03');
    const scheduled = await automaticOf(due.id);
    expect(scheduled).toMatchObject({
      status: 'scheduled',
      scheduled_for: instantAt(TZ, '2011-05-03', 10, 0).toISOString(),
      template: 'reminder_due_today',
    });
    expect(scheduled.scheduled_for).toBe('2011-05-03T04:30:00.000Z');

    h.clock.set('2011-05-03T04:29:59.999Z');
    await runScheduler(biz);
    expect((await automaticOf(due.id)).status).toBe('scheduled');
    expect(channel.messages.filter((m) => m.to === due.contact_phone)).toEqual([]);

    h.clock.set('2011-05-03T04:30:00.000Z');
    expect(await runScheduler(biz)).toBeGreaterThanOrEqual(1);
    const sent = await automaticOf(due.id);
    expect(sent).toMatchObject({
      status: 'sent',
      template: 'reminder_due_today',
      sent_at: '2011-05-03T04:30:00.000Z',
      attempts: 1,
      lease_id: null,
    });
    expect(channel.messages.filter((m) => m.to === due.contact_phone)).toEqual([
      expect.objectContaining({
        kind: 'template',
        template: 'reminder_due_today',
        messageId: sent.provider_message_id,
      }),
    ]);
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(1);
    expect(await sentEvents(biz.business.id)).toEqual([
      {
        transactionId: due.id,
        contactName: due.contact_name,
        template: 'reminder_due_today',
        sentAt: '2011-05-03T04:30:00.000Z',
      },
    ]);

    // Nothing is sent twice.
    h.clock.advance(3 * 24 * HOUR);
    await runScheduler(biz);
    expect(channel.messages.filter((m) => m.to === due.contact_phone)).toHaveLength(1);
  });

  it('uses the business time zone for 10:00', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness({ ...ONE_STEP, timezone: 'America/Los_Angeles' });
    const due = await newDue(biz, '2011-05-03');
    expect((await automaticOf(due.id)).scheduled_for).toBe('2011-05-03T17:00:00.000Z');
  });

  it('schedules nothing when 10:00 on the due date has already passed', async () => {
    h.clock.set('2011-05-01T04:30:00.000Z'); // 10:00 in Kolkata on the 1st
    const biz = await h.newBusiness(ONE_STEP);
    const today = await newDue(biz, '2011-05-01');
    const past = await newDue(biz, '2011-04-01');
    expect(await remindersOf(today.id)).toEqual([]);
    expect(await remindersOf(past.id)).toEqual([]);
    h.clock.set('2011-05-01T04:29:59.000Z');
    const justBefore = await newDue(biz, '2011-05-01');
    expect((await automaticOf(justBefore.id)).scheduled_for).toBe('2011-05-01T04:30:00.000Z');
  });

  it('cancels the reminder when the due is paid', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-04');
    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`, {})).status).toBe(200);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'cancelled', reason: 'paid' });
    h.clock.set('2011-05-04T05:00:00.000Z');
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'cancelled' });
    expect(channel.messages.filter((m) => m.to === due.contact_phone)).toEqual([]);
    expect(await sentEvents(biz.business.id)).toEqual([]);
  });

  it("moves a reminder held back by quiet hours to the next 09:00 local, keeping its step's template", async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-05');
    // The worker was down all day and comes back at 22:00 local.
    h.clock.set('2011-05-05T16:30:00.000Z');
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({
      status: 'scheduled',
      reason: 'quiet_hours',
      scheduled_for: instantAt(TZ, '2011-05-06', 9, 0).toISOString(),
      lease_id: null,
    });
    expect(channel.messages.filter((m) => m.to === due.contact_phone)).toEqual([]);

    h.clock.set(instantAt(TZ, '2011-05-06', 9, 0));
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'sent', template: 'reminder_due_today' });
  });

  it('moves a reminder held back by quiet hours before 09:00 to 09:00 the same day', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-05');
    await h.store.db
      .updateTable('reminders')
      .set({ scheduled_for: '2011-05-05T00:30:00.000Z' })
      .where('transaction_id', '=', due.id)
      .execute();
    h.clock.set('2011-05-05T01:00:00.000Z'); // 06:30 local
    await runScheduler(biz);
    expect((await automaticOf(due.id)).scheduled_for).toBe(instantAt(TZ, '2011-05-05', 9, 0).toISOString());
  });

  it('moves a reminder held back by the cooldown to 24 hours after the contact last reminder', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-06');
    h.clock.set('2011-05-06T04:00:00.000Z'); // 09:30 local: a manual reminder first
    expect((await biz.post(`/v1/transactions/${due.id}/remind`, {})).body.data).toMatchObject({ sent: true });

    h.clock.set('2011-05-06T04:30:00.000Z');
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({
      status: 'scheduled',
      reason: 'too_soon',
      scheduled_for: '2011-05-07T04:00:00.000Z',
    });
    h.clock.set('2011-05-07T04:00:00.000Z');
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'sent', template: 'reminder_due_today' });
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(2);
  });

  it('moves a reminder held back by the weekly cap to when the oldest reminder leaves the window', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-07');
    for (const day of ['2011-05-04', '2011-05-05', '2011-05-06']) {
      h.clock.set(instantAt(TZ, day, 9, 0));
      expect((await biz.post(`/v1/transactions/${due.id}/remind`, {})).body.data).toMatchObject({ sent: true });
    }
    h.clock.set(instantAt(TZ, '2011-05-07', 10, 0));
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({
      status: 'scheduled',
      reason: 'max_reached',
      scheduled_for: instantAt(TZ, '2011-05-11', 9, 0).toISOString(),
    });
    h.clock.set(instantAt(TZ, '2011-05-11', 9, 0));
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'sent' });
  });

  it('cancels a reminder for an opted-out phone, a contact without phone, or a paused business', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const optedOut = await newDue(biz, '2011-05-08');
    const noPhone = await newDue(biz, '2011-05-08', { contact_phone: undefined });
    await h.services.chatInbound.handle({
      messages: [{ id: `wamid.${optedOut.id}`, from: optedOut.contact_phone, text: 'STOP' }],
      statuses: [],
    });
    const paused = await h.newBusiness(ONE_STEP);
    const pausedDue = await newDue(paused, '2011-05-08');
    await h.services.businesses.update(paused.business.id, { remindersPaused: true });

    h.clock.set(instantAt(TZ, '2011-05-08', 10, 0));
    await runScheduler(biz, paused);
    expect(await automaticOf(optedOut.id)).toMatchObject({ status: 'cancelled', reason: 'opted_out' });
    expect(await automaticOf(noPhone.id)).toMatchObject({ status: 'cancelled', reason: 'no_phone' });
    expect(await automaticOf(pausedDue.id)).toMatchObject({ status: 'cancelled', reason: 'paused' });
    expect((await biz.get(`/v1/transactions/${optedOut.id}`)).body.data.reminder_count).toBe(0);
    expect((await paused.get(`/v1/transactions/${pausedDue.id}`)).body.data.reminder_count).toBe(0);
    expect(await sentEvents(biz.business.id)).toEqual([]);
    // Cancelled for good: unpausing later does not bring it back.
    await h.services.businesses.update(paused.business.id, { remindersPaused: false });
    h.clock.advance(24 * HOUR);
    await runScheduler(biz, paused);
    expect(await automaticOf(pausedDue.id)).toMatchObject({ status: 'cancelled', reason: 'paused' });
  });

  it('sends one of two same-day reminders to a contact and moves the other by the cooldown', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const phone = freshPhone();
    const a = await newDue(biz, '2011-05-09', { contact_name: 'Meera Das', contact_phone: phone });
    const b = await newDue(biz, '2011-05-09', { contact_name: 'Meera Das' });
    h.clock.set(instantAt(TZ, '2011-05-09', 10, 0));
    await runScheduler(biz);
    const rows = [await automaticOf(a.id), await automaticOf(b.id)];
    expect(rows.map((r) => r.status).sort()).toEqual(['scheduled', 'sent']);
    const held = rows.find((r) => r.status === 'scheduled');
    expect(held).toMatchObject({ reason: 'too_soon', scheduled_for: instantAt(TZ, '2011-05-10', 10, 0).toISOString() });
    expect(channel.messages.filter((m) => m.to === a.contact_phone)).toHaveLength(1);
  });

  it('takes over a reminder whose sender crashed once its lease is over, and sends it once', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-10');
    const at = instantAt(TZ, '2011-05-10', 10, 0);
    // A worker claimed the reminder and marked it sending, then died before recording the send.
    await h.store.db
      .updateTable('reminders')
      .set({
        status: 'sending',
        lease_id: 'dead-worker',
        sent_at: at.toISOString(),
        attempts: 1,
        locked_until: new Date(at.getTime() + 5 * 60_000).toISOString(),
      })
      .where('transaction_id', '=', due.id)
      .execute();
    h.clock.set(new Date(at.getTime() + 60_000));
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'sending', lease_id: 'dead-worker' });

    h.clock.set(new Date(at.getTime() + 5 * 60_000));
    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'sent', attempts: 2, lease_id: null });
    expect(channel.messages.filter((m) => m.to === due.contact_phone)).toHaveLength(1);
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(1);
  });

  it('sends a late reminder for a due the overdue sweeper has moved, leaving the totals exact', async () => {
    h.clock.set('2011-05-01T03:30:00.000Z');
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-05-02');
    h.clock.set(instantAt(TZ, '2011-05-03', 9, 30));
    expect(await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(signal)).toBeGreaterThanOrEqual(1);
    const stored = await h.store.db.selectFrom('transactions').select('status').where('id', '=', due.id).execute();
    expect(stored).toEqual([{ status: 'overdue' }]);

    await runScheduler(biz);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'sent', template: 'reminder_due_today' });
    const after = await biz.get(`/v1/transactions/${due.id}`);
    expect(after.body.data).toMatchObject({ status: 'overdue', reminder_count: 1 });
    const summary = (await biz.get('/v1/summary')).body.data;
    expect(summary.overdue).toEqual({ count: 1, paise: 50_000 });
    expect(summary.pending).toEqual({ count: 0, paise: 0 });
  });
});

describe('reminder-scheduler job', () => {
  // The job takes every due reminder in the (file's own) database. It lives in January, before the
  // reminders the other tests of this file leave scheduled.
  it('sends due reminders and counts outcomes in the metrics', async () => {
    h.clock.set('2011-01-01T03:30:00.000Z');
    const metrics = createMetrics();
    const job = reminderScheduler({ reminders: h.services.reminders, metrics });
    const biz = await h.newBusiness(ONE_STEP);
    const due = await newDue(biz, '2011-01-02');
    const late = await newDue(biz, '2011-01-02');
    await h.store.db
      .updateTable('reminders')
      .set({ scheduled_for: '2011-01-02T15:45:00.000Z' })
      .where('transaction_id', '=', late.id)
      .execute();
    h.clock.set('2011-01-02T16:00:00.000Z'); // 21:30 local
    expect(await job.runOnce(signal)).toBe(2);
    expect(await automaticOf(due.id)).toMatchObject({ status: 'scheduled', reason: 'quiet_hours' });
    h.clock.set(instantAt(TZ, '2011-01-03', 9, 0));
    expect(await job.runOnce(signal)).toBe(2);
    expect(await job.runOnce(signal)).toBe(0);
    const text = await metrics.registry.metrics();
    expect(text).toContain('reminders_total{outcome="quiet_hours"} 2');
    expect(text).toContain('reminders_total{outcome="sent"} 2');
    expect(await automaticOf(late.id)).toMatchObject({ status: 'sent', template: 'reminder_due_today' });
  });
});
