import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { instantAt } from '../src/lib/dates.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

/** PRODUCT part 13: reminder sequences, pauses and promises to pay, walked with an injected clock. */

const APP_SECRET = 'sequence-app-secret-0123456789';
const TZ = 'Asia/Kolkata';
/** 10:00 (or another hour) business time on a date, as the API writes it. */
const at = (date: string, hour = 10) => instantAt(TZ, date, hour, 0).toISOString();

let h: Harness;
let channel: LogChannel;
const signal = new AbortController().signal;

beforeAll(async () => {
  h = await startHarness({ now: at('2030-03-01', 12), env: { WHATSAPP_APP_SECRET: APP_SECRET } });
  channel = h.services.channel as LogChannel;
});
afterAll(() => h.close());

function freshPhone(): string {
  return `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
}

async function newDue(biz: TestBusiness, dueDate: string, phone = freshPhone()) {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 75_000,
    due_date: dueDate,
    contact_name: `Sequence Buyer ${randomBytes(3).toString('hex')}`,
    contact_phone: phone,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; contact_id: string; contact_phone: string };
}

/** Runs the scheduler over this business until it has nothing left to do now, as the worker does. */
async function runScheduler(biz: TestBusiness) {
  for (let i = 0; i < 20; i++) {
    if ((await h.services.reminders.runDue(signal, { businessId: biz.business.id })).length === 0) return;
  }
  throw new Error('scheduler did not settle');
}

/** The due's steps without their delivery (test/whatsapp-delivery.test.ts looks at that). */
async function steps(biz: TestBusiness, id: string) {
  const res = await biz.get(`/v1/transactions/${id}`);
  expect(res.status).toBe(200);
  return (
    res.body.data.reminders as {
      template: string;
      scheduled_for: string;
      status: string;
      reason: string | null;
      delivery: string | null;
    }[]
  ).map(({ delivery: _delivery, ...step }) => step);
}

function sentTo(phone: string) {
  return channel.messages.filter((m) => m.to === phone).map((m) => (m.kind === 'template' ? m.template : m.kind));
}

function reply(from: string, text: string, id?: string) {
  return sendWhatsAppMessage(h, APP_SECRET, from, text, id);
}

describe('reminder sequence of a due', () => {
  it('sends the four steps at 10:00 business time, moving one held back by quiet hours', async () => {
    h.clock.set(at('2030-03-01', 12));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-03-10');
    expect(await steps(biz, due.id)).toEqual([
      { template: 'reminder_upcoming', scheduled_for: at('2030-03-07'), status: 'scheduled', reason: null },
      { template: 'reminder_due_today', scheduled_for: at('2030-03-10'), status: 'scheduled', reason: null },
      { template: 'reminder_overdue_week', scheduled_for: at('2030-03-17'), status: 'scheduled', reason: null },
      { template: 'reminder_final', scheduled_for: at('2030-04-09'), status: 'scheduled', reason: null },
    ]);

    // Not a moment early.
    h.clock.set(new Date(Date.parse(at('2030-03-07')) - 1));
    await runScheduler(biz);
    expect(sentTo(due.contact_phone)).toEqual([]);

    h.clock.set(at('2030-03-07'));
    await runScheduler(biz);
    h.clock.set(at('2030-03-10'));
    await runScheduler(biz);
    expect(sentTo(due.contact_phone)).toEqual(['reminder_upcoming', 'reminder_due_today']);

    // The worker comes back at 22:00 on the overdue step's day: quiet hours move it to 09:00.
    h.clock.set(at('2030-03-17', 22));
    await runScheduler(biz);
    expect((await steps(biz, due.id))[2]).toEqual({
      template: 'reminder_overdue_week',
      scheduled_for: at('2030-03-18', 9),
      status: 'scheduled',
      reason: 'quiet_hours',
    });
    h.clock.set(at('2030-03-18', 9));
    await runScheduler(biz);

    h.clock.set(at('2030-04-09'));
    await runScheduler(biz);
    expect(sentTo(due.contact_phone)).toEqual([
      'reminder_upcoming',
      'reminder_due_today',
      'reminder_overdue_week',
      'reminder_final',
    ]);
    const read = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    expect(read.reminder_count).toBe(4);
    expect(read.reminders.map((s: { status: string; reason: string | null }) => [s.status, s.reason])).toEqual([
      ['sent', null],
      ['sent', null],
      ['sent', null],
      ['sent', null],
    ]);
  });

  it("follows the business's own offsets, each step's template by its offset", async () => {
    h.clock.set(at('2030-03-01', 12));
    const biz = await h.newBusiness();
    await h.services.businesses.update(biz.business.id, { reminderSteps: '-5, 1, 40' });
    const due = await newDue(biz, '2030-03-10');
    expect(await steps(biz, due.id)).toEqual([
      { template: 'reminder_upcoming', scheduled_for: at('2030-03-05'), status: 'scheduled', reason: null },
      { template: 'reminder_overdue_week', scheduled_for: at('2030-03-11'), status: 'scheduled', reason: null },
      { template: 'reminder_final', scheduled_for: at('2030-04-19'), status: 'scheduled', reason: null },
    ]);
  });

  it('does not schedule steps whose moment passed before the due was created', async () => {
    h.clock.set(at('2030-03-12', 12));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-03-10');
    expect((await steps(biz, due.id)).map((s) => s.template)).toEqual(['reminder_overdue_week', 'reminder_final']);
  });

  it('skips a step held back past the next step by the weekly cap, and a step whose next one has come', async () => {
    h.clock.set(at('2030-03-01', 12));
    const biz = await h.newBusiness();
    await h.services.businesses.update(biz.business.id, { reminderSteps: '0,1' });
    const due = await newDue(biz, '2030-03-10');
    // Three manual reminders in the week before: the cap holds the first step until 03-11 12:00,
    // after the second step's moment, so the first is skipped, not sent together with the second.
    for (const day of ['2030-03-04', '2030-03-06', '2030-03-08']) {
      h.clock.set(at(day, 12));
      expect((await biz.post(`/v1/transactions/${due.id}/remind`, {})).body.data.sent).toBe(true);
    }
    h.clock.set(at('2030-03-10'));
    await runScheduler(biz);
    // The manual reminders are steps of their own, at the moment each was sent.
    expect(await steps(biz, due.id)).toEqual([
      ...['2030-03-04', '2030-03-06', '2030-03-08'].map((day) => ({
        template: 'reminder_upcoming',
        scheduled_for: at(day, 12),
        status: 'sent',
        reason: null,
      })),
      { template: 'reminder_due_today', scheduled_for: at('2030-03-10'), status: 'skipped', reason: 'max_reached' },
      { template: 'reminder_overdue_week', scheduled_for: at('2030-03-11'), status: 'scheduled', reason: null },
    ]);
    h.clock.set(at('2030-03-11'));
    await runScheduler(biz);
    expect((await steps(biz, due.id))[4]).toMatchObject({ status: 'scheduled', reason: 'max_reached' });
    h.clock.set(at('2030-03-11', 12));
    await runScheduler(biz);
    expect((await steps(biz, due.id))[4]).toMatchObject({ status: 'sent', reason: null });
    expect(sentTo(due.contact_phone).slice(3)).toEqual(['reminder_overdue_week']);

    // A worker down across two steps' moments sends only the latest, never a burst.
    const other = await newDue(biz, '2030-03-20');
    h.clock.set(at('2030-03-21', 11));
    await runScheduler(biz);
    expect(await steps(biz, other.id)).toEqual([
      { template: 'reminder_due_today', scheduled_for: at('2030-03-20'), status: 'skipped', reason: null },
      { template: 'reminder_overdue_week', scheduled_for: at('2030-03-21'), status: 'sent', reason: null },
    ]);
  });

  it('holds steps for a promise to pay read from the buyer, and a payment in the middle cancels the rest', async () => {
    h.clock.set(at('2030-03-01', 12));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-03-10');
    h.clock.set(at('2030-03-07'));
    await runScheduler(biz);
    expect(sentTo(due.contact_phone)).toEqual(['reminder_upcoming']);

    // An unclear reply changes nothing and is kept for the business to read.
    h.clock.set(at('2030-03-08', 15));
    await reply(due.contact_phone, 'haan ji dekhte hain');
    const before = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    expect(before.promise).toBeNull();
    const replies = await biz.get(`/v1/contacts/${due.contact_id}/replies`);
    expect(replies.body).toEqual({
      data: [
        {
          id: expect.any(String),
          text: 'haan ji dekhte hain',
          received_at: at('2030-03-08', 15),
          promise_date: null,
          transaction_id: null,
        },
      ],
    });
    expect((await (await h.newBusiness()).get(`/v1/contacts/${due.contact_id}/replies`)).status).toBe(404);
    expect((await biz.get(`/v1/contacts/${due.contact_id}/replies?limit=0`)).status).toBe(400);

    // "20/3": the due-today step would be held until 03-21 10:00, after the next step: skipped.
    h.clock.set(at('2030-03-08', 16));
    const id = `wamid.${randomBytes(8).toString('hex')}`;
    await reply(due.contact_phone, 'sir 20/3 tak pakka payment kar dunga', id);
    await reply(due.contact_phone, 'sir 20/3 tak pakka payment kar dunga', id); // Meta's retry
    const promised = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    expect(promised.promise).toEqual({ date: '2030-03-20', made_at: at('2030-03-08', 16), kept: null });
    const updated = await h.store.db
      .selectFrom('events')
      .select('id')
      .where('business_id', '=', biz.business.id)
      .where('type', '=', 'transaction.updated')
      .execute();
    expect(updated).toHaveLength(1);
    const latest = (await biz.get(`/v1/contacts/${due.contact_id}/replies?limit=1`)).body.data;
    expect(latest).toEqual([
      expect.objectContaining({
        text: 'sir 20/3 tak pakka payment kar dunga',
        promise_date: '2030-03-20',
        transaction_id: due.id,
      }),
    ]);

    h.clock.set(at('2030-03-10'));
    await runScheduler(biz);
    h.clock.set(at('2030-03-17'));
    await runScheduler(biz);
    expect((await steps(biz, due.id)).slice(1)).toEqual([
      { template: 'reminder_due_today', scheduled_for: at('2030-03-10'), status: 'skipped', reason: 'promised' },
      { template: 'reminder_overdue_week', scheduled_for: at('2030-03-21'), status: 'scheduled', reason: 'promised' },
      { template: 'reminder_final', scheduled_for: at('2030-04-09'), status: 'scheduled', reason: null },
    ]);
    expect(sentTo(due.contact_phone)).toEqual(['reminder_upcoming']);

    // Paid on the promised day: the promise is kept and what is left is cancelled.
    h.clock.set(at('2030-03-20', 18));
    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`, {})).status).toBe(200);
    const paid = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    expect(paid.promise).toMatchObject({ date: '2030-03-20', kept: true });
    expect(paid.reminders.slice(2).map((s: { status: string; reason: string }) => [s.status, s.reason])).toEqual([
      ['cancelled', 'paid'],
      ['cancelled', 'paid'],
    ]);
    h.clock.set(at('2030-04-09'));
    await runScheduler(biz);
    expect(sentTo(due.contact_phone)).toEqual(['reminder_upcoming']);
  });

  it('marks a promise broken once the promised day ends unpaid, lowering the payment score', async () => {
    h.clock.set(at('2030-03-01', 12));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-03-10');
    const score = async () => (await biz.get(`/v1/contacts/${due.contact_id}`)).body.data.payment_score;
    await reply(due.contact_phone, 'kal');
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.promise).toMatchObject({
      date: '2030-03-02',
      kept: null,
    });
    h.clock.set(at('2030-03-02', 23));
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.promise.kept).toBeNull();
    expect(await score()).toBe(100);
    h.clock.set(at('2030-03-03', 0));
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.promise.kept).toBe(false);
    h.clock.set(at('2030-04-01', 12));
    // 30 days after the promise (and 22 after the due date): lower than the lateness alone.
    const withPromise = await score();
    const other = await h.newBusiness();
    const plain = await newDue(other, '2030-03-10');
    const withoutPromise = (await other.get(`/v1/contacts/${plain.contact_id}`)).body.data.payment_score;
    expect(withPromise).toBeLessThan(withoutPromise);
  });
});

describe('pauses', () => {
  it('a paused due keeps no steps; lifting the pause puts back those still ahead', async () => {
    h.clock.set(at('2030-03-01', 12));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-03-10');
    h.clock.set(at('2030-03-07'));
    await runScheduler(biz);
    expect((await biz.patch(`/v1/transactions/${due.id}`, { reminders_paused: true })).status).toBe(200);
    expect((await steps(biz, due.id)).map((s) => [s.status, s.reason])).toEqual([
      ['sent', null],
      ['cancelled', 'paused'],
      ['cancelled', 'paused'],
      ['cancelled', 'paused'],
    ]);
    const manual = await biz.post(`/v1/transactions/${due.id}/remind`, {});
    expect(manual.body.data).toMatchObject({ sent: false, reason: 'paused' });
    h.clock.set(at('2030-03-12'));
    expect((await biz.patch(`/v1/transactions/${due.id}`, { reminders_paused: false })).status).toBe(200);
    expect((await steps(biz, due.id)).map((s) => [s.template, s.status, s.reason])).toEqual([
      ['reminder_upcoming', 'sent', null],
      ['reminder_due_today', 'cancelled', 'paused'],
      ['reminder_overdue_week', 'scheduled', null],
      ['reminder_final', 'scheduled', null],
    ]);
  });

  it('PATCH /v1/contacts/{id} {reminders_paused} holds automatic and manual reminders of every due', async () => {
    h.clock.set(at('2030-03-01', 12));
    const biz = await h.newBusiness();
    const phone = freshPhone();
    const first = await newDue(biz, '2030-03-10', phone);
    const second = await biz.post('/v1/transactions', {
      amount_paise: 5000,
      due_date: '2030-03-20',
      contact_id: first.contact_id,
    });
    expect(second.status).toBe(201);
    const res = await biz.patch(`/v1/contacts/${first.contact_id}`, { reminders_paused: true });
    expect(res.status).toBe(200);
    expect((await biz.get(`/v1/contacts/${first.contact_id}`)).body.data.reminders_paused).toBe(true);
    for (const id of [first.id, second.body.data.id]) {
      expect((await steps(biz, id)).every((s) => s.status === 'cancelled' && s.reason === 'paused')).toBe(true);
    }
    expect((await biz.post(`/v1/transactions/${first.id}/remind`, {})).body.data).toMatchObject({
      sent: false,
      reason: 'paused',
    });
    h.clock.set(at('2030-03-10'));
    await runScheduler(biz);
    expect(sentTo(phone)).toEqual([]);

    // A new date while the contact is paused: the new steps are held too.
    await biz.patch(`/v1/transactions/${second.body.data.id}`, { due_date: '2030-03-25' });
    expect((await steps(biz, second.body.data.id)).filter((s) => s.status === 'scheduled')).toEqual([]);
    // Lifted: the steps still ahead come back (not those of a due paused on its own).
    await biz.patch(`/v1/transactions/${second.body.data.id}`, { reminders_paused: true });
    h.clock.set(at('2030-03-12'));
    expect((await biz.patch(`/v1/contacts/${first.contact_id}`, { reminders_paused: false })).status).toBe(200);
    expect((await steps(biz, first.id)).filter((s) => s.status === 'scheduled').map((s) => s.template)).toEqual([
      'reminder_overdue_week',
      'reminder_final',
    ]);
    expect((await steps(biz, second.body.data.id)).filter((s) => s.status === 'scheduled')).toEqual([]);
    h.clock.set(at('2030-03-17'));
    await runScheduler(biz);
    expect(sentTo(phone)).toEqual(['reminder_overdue_week']);
  });

  it("answers 400 for a bad reminders_paused and 404 for another business's contact, changing nothing", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const due = await newDue(biz, '2030-03-10');
    const bad = await biz.patch(`/v1/contacts/${due.contact_id}`, { reminders_paused: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('reminders_paused');
    expect((await other.patch(`/v1/contacts/${due.contact_id}`, { reminders_paused: true })).status).toBe(404);
    expect((await biz.get(`/v1/contacts/${due.contact_id}`)).body.data.reminders_paused).toBe(false);
    expect((await steps(biz, due.id)).every((s) => s.status === 'scheduled')).toBe(true);
  });
});

describe('GET /v1/aging', () => {
  it('buckets open balances by days past due in the business time zone', async () => {
    h.clock.set(at('2030-06-30', 12));
    const biz = await h.newBusiness();
    for (const [date, paise] of [
      ['2030-07-05', 100],
      ['2030-06-30', 200],
      ['2030-06-29', 300],
      ['2030-05-31', 400],
      ['2030-05-30', 500],
      ['2030-04-01', 600],
      ['2030-03-31', 700],
      ['2029-01-01', 800],
    ] as const) {
      const res = await biz.post('/v1/transactions', {
        amount_paise: paise,
        due_date: date,
        contact_name: 'Aging Buyer',
      });
      expect(res.status).toBe(201);
    }
    const paid = await biz.post('/v1/transactions', {
      amount_paise: 5000,
      due_date: '2030-06-01',
      contact_name: 'Aging Buyer',
    });
    await biz.post(`/v1/transactions/${paid.body.data.id}/mark-paid`, {});
    const part = await biz.post('/v1/transactions', {
      amount_paise: 1000,
      due_date: '2030-06-01',
      contact_name: 'Aging Buyer',
    });
    await biz.post(`/v1/transactions/${part.body.data.id}/payments`, { amount_paise: 250 });

    const res = await biz.get('/v1/aging');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        current: { count: 2, paise: 300 },
        d1_30: { count: 3, paise: 1450 },
        d31_60: { count: 1, paise: 500 },
        d61_90: { count: 1, paise: 600 },
        d90_plus: { count: 2, paise: 1500 },
      },
    });
    const empty = await (await h.newBusiness()).get('/v1/aging');
    expect(empty.body.data.d90_plus).toEqual({ count: 0, paise: 0 });
    expect((await h.request('GET', '/v1/aging')).status).toBe(401);
  });
});
