import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

let h: Harness;
let channel: LogChannel;
beforeAll(async () => {
  // 12:00 in Asia/Kolkata (the default business time zone).
  h = await startHarness({ now: '2026-03-10T06:30:00.000Z' });
  channel = h.services.channel as LogChannel;
});
afterAll(() => h.close());

let phoneSeq = 0;
function freshPhone(): string {
  phoneSeq += 1;
  return `+91 98${String(process.pid % 1000).padStart(3, '0')}${String(phoneSeq).padStart(5, '0')}`;
}

async function newDue(
  biz: TestBusiness,
  input: { due_date: string; contact_name?: string; contact_phone?: string | null; amount_paise?: number },
) {
  const body: Record<string, unknown> = {
    amount_paise: input.amount_paise ?? 123_450_00,
    due_date: input.due_date,
    contact_name: input.contact_name ?? `Buyer ${Math.random().toString(36).slice(2, 8)}`,
  };
  if (input.contact_phone !== null) body.contact_phone = input.contact_phone ?? freshPhone();
  const res = await biz.post('/v1/transactions', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function reminderEvents(businessId: string) {
  const rows = await h.store.db
    .selectFrom('events')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('type', '=', 'reminder.sent')
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.payload));
}

function messagesTo(phoneDigits: string) {
  return channel.messages.filter((m) => m.to === phoneDigits);
}

describe('POST /v1/transactions/:id/remind', () => {
  it('sends the reminder through the channel, counts it and emits reminder.sent', async () => {
    h.clock.set('2026-03-10T06:30:00.000Z');
    const biz = await h.newBusiness({ name: 'Sharma Textiles' });
    const due = await newDue(biz, { due_date: '2026-03-15', contact_name: 'Ravi Kumar', amount_paise: 12_345_000 });

    const res = await biz.post(`/v1/transactions/${due.id}/remind`, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ data: { sent: true, reason: null, template: 'reminder_upcoming' } });

    const after = await biz.get(`/v1/transactions/${due.id}`);
    expect(after.body.data.reminder_count).toBe(1);
    expect(messagesTo(due.contact_phone)).toEqual([
      expect.objectContaining({
        kind: 'template',
        to: due.contact_phone,
        template: 'reminder_upcoming',
        language: 'en',
        parameters: ['Ravi Kumar', 'Sharma Textiles', '₹1,23,450.00', '15 Mar 2026', due.pay_page_url],
      }),
    ]);
    expect(await reminderEvents(biz.business.id)).toEqual([
      {
        transactionId: due.id,
        contactName: 'Ravi Kumar',
        template: 'reminder_upcoming',
        sentAt: '2026-03-10T06:30:00.000Z',
      },
    ]);
    const row = await h.store.db
      .selectFrom('reminders')
      .selectAll()
      .where('transaction_id', '=', due.id)
      .where('kind', '=', 'manual')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'sent', template: 'reminder_upcoming', attempts: 1, lease_id: null });
    expect(row.provider_message_id).toBe(messagesTo(due.contact_phone)[0]?.messageId);
  });

  it('accepts an absent body and honours an explicit template', async () => {
    h.clock.set('2026-03-10T06:30:00.000Z');
    const biz = await h.newBusiness();
    const a = await newDue(biz, { due_date: '2026-03-20' });
    const noBody = await biz.post(`/v1/transactions/${a.id}/remind`);
    expect(noBody.status, noBody.text).toBe(200);
    expect(noBody.body.data).toEqual({ sent: true, reason: null, template: 'reminder_upcoming' });

    const b = await newDue(biz, { due_date: '2026-03-20' });
    const final = await biz.post(`/v1/transactions/${b.id}/remind`, { template: 'reminder_final' });
    expect(final.body.data).toEqual({ sent: true, reason: null, template: 'reminder_final' });
    expect(messagesTo(b.contact_phone).map((m) => m.kind === 'template' && m.template)).toEqual(['reminder_final']);
  });

  it('chooses the template from the due date in the business time zone', async () => {
    // 2026-03-10 20:00 UTC is 2026-03-11 09:00 in Auckland (UTC+13): "today" is the 11th there.
    h.clock.set('2026-03-10T20:00:00.000Z');
    const biz = await h.newBusiness({ timezone: 'Pacific/Auckland' });
    const cases: [string, string][] = [
      ['2026-03-12', 'reminder_upcoming'],
      ['2026-03-11', 'reminder_due_today'],
      ['2026-03-10', 'reminder_overdue_week'],
      ['2026-02-10', 'reminder_overdue_week'],
      ['2026-02-09', 'reminder_final'],
      ['2025-01-01', 'reminder_final'],
    ];
    for (const [dueDate, template] of cases) {
      const due = await newDue(biz, { due_date: dueDate });
      const res = await biz.post(`/v1/transactions/${due.id}/remind`, {});
      expect(res.body.data, `${dueDate}: ${res.text}`).toEqual({ sent: true, reason: null, template });
    }
  });

  it('answers 400 naming the field for a bad template or an unknown field, and sends nothing', async () => {
    h.clock.set('2026-03-10T06:30:00.000Z');
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-03-20' });
    const bad = await biz.post(`/v1/transactions/${due.id}/remind`, { template: 'reminder_angry' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'template' });
    expect(bad.body.error.message).toContain('template');
    const notString = await biz.post(`/v1/transactions/${due.id}/remind`, { template: 3 });
    expect(notString.status).toBe(400);
    expect(notString.body.error.field).toBe('template');
    const unknown = await biz.post(`/v1/transactions/${due.id}/remind`, { channel: 'sms' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe('channel');
    const notJson = await biz.post(`/v1/transactions/${due.id}/remind`, undefined, {
      payload: '{"template":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);

    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(0);
    expect(messagesTo(due.contact_phone)).toEqual([]);
    expect(await reminderEvents(biz.business.id)).toEqual([]);
  });

  it('answers 404 for an unknown due, another business due or a non-uuid id', async () => {
    h.clock.set('2026-03-10T06:30:00.000Z');
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const theirs = await newDue(other, { due_date: '2026-03-20' });
    for (const id of ['01959c4e-0000-7000-8000-000000000000', theirs.id, 'not-a-uuid']) {
      const res = await biz.post(`/v1/transactions/${id}/remind`, {});
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(messagesTo(theirs.contact_phone)).toEqual([]);
    expect((await other.get(`/v1/transactions/${theirs.id}`)).body.data.reminder_count).toBe(0);
  });

  it('answers 401 without an API key', async () => {
    const res = await h.request('POST', '/v1/transactions/01959c4e-0000-7000-8000-000000000000/remind', {
      body: {},
    });
    expect(res.status).toBe(401);
  });

  it('answers 409 for a paid due and sends nothing', async () => {
    h.clock.set('2026-03-10T06:30:00.000Z');
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-03-20' });
    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`, {})).status).toBe(200);
    const res = await biz.post(`/v1/transactions/${due.id}/remind`, {});
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect(messagesTo(due.contact_phone)).toEqual([]);
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(0);
  });
});

describe('reminder protections', () => {
  const HOUR = 60 * 60 * 1000;
  // 12:00 in Asia/Kolkata.
  const NOON = '2026-04-01T06:30:00.000Z';

  async function remind(biz: TestBusiness, id: string) {
    const res = await biz.post(`/v1/transactions/${id}/remind`, {});
    expect(res.status, res.text).toBe(200);
    return res.body.data as { sent: boolean; reason: string | null; template: string };
  }

  async function expectNothingRecorded(biz: TestBusiness, due: { id: string; contact_phone: string | null }) {
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(0);
    if (due.contact_phone) expect(messagesTo(due.contact_phone)).toEqual([]);
    const sent = await h.store.db
      .selectFrom('reminders')
      .select('id')
      .where('transaction_id', '=', due.id)
      .where('status', 'in', ['sent', 'sending'])
      .execute();
    expect(sent).toEqual([]);
  }

  it('opted_out: the contact phone sent STOP (and START lets reminders through again)', async () => {
    h.clock.set(NOON);
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-04-05' });
    await h.services.chatInbound.handle({
      messages: [{ id: `wamid.stop.${due.id}`, from: due.contact_phone, text: 'STOP' }],
      statuses: [],
    });
    expect(await remind(biz, due.id)).toEqual({ sent: false, reason: 'opted_out', template: 'reminder_upcoming' });
    await expectNothingRecorded(biz, due);
    expect(await reminderEvents(biz.business.id)).toEqual([]);

    await h.services.chatInbound.handle({
      messages: [{ id: `wamid.start.${due.id}`, from: due.contact_phone, text: 'start' }],
      statuses: [],
    });
    expect(await remind(biz, due.id)).toMatchObject({ sent: true, reason: null });
  });

  it('no_phone: the contact has no phone', async () => {
    h.clock.set(NOON);
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-04-05', contact_phone: null });
    expect(await remind(biz, due.id)).toEqual({ sent: false, reason: 'no_phone', template: 'reminder_upcoming' });
    await expectNothingRecorded(biz, due);
  });

  it('paused: the business paused its reminders', async () => {
    h.clock.set(NOON);
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-04-05' });
    await h.services.businesses.update(biz.business.id, { remindersPaused: true });
    expect(await remind(biz, due.id)).toMatchObject({ sent: false, reason: 'paused' });
    await expectNothingRecorded(biz, due);
    await h.services.businesses.update(biz.business.id, { remindersPaused: false });
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
  });

  it('too_soon: one reminder per contact per 24 hours, across the contact dues', async () => {
    h.clock.set(NOON);
    const biz = await h.newBusiness();
    const phone = freshPhone();
    const first = await newDue(biz, { due_date: '2026-04-05', contact_name: 'Anita Rao', contact_phone: phone });
    const second = await newDue(biz, { due_date: '2026-04-06', contact_name: 'Anita Rao' });
    const someoneElse = await newDue(biz, { due_date: '2026-04-06' });
    expect(await remind(biz, first.id)).toMatchObject({ sent: true });

    h.clock.advance(24 * HOUR - 1);
    expect(await remind(biz, second.id)).toMatchObject({ sent: false, reason: 'too_soon' });
    expect(await remind(biz, first.id)).toMatchObject({ sent: false, reason: 'too_soon' });
    expect(await remind(biz, someoneElse.id)).toMatchObject({ sent: true });
    expect((await biz.get(`/v1/transactions/${second.id}`)).body.data.reminder_count).toBe(0);

    h.clock.advance(1);
    expect(await remind(biz, second.id)).toMatchObject({ sent: true });
    expect((await biz.get(`/v1/transactions/${second.id}`)).body.data.reminder_count).toBe(1);
    expect((await biz.get(`/v1/transactions/${first.id}`)).body.data.reminder_count).toBe(1);
  });

  it('max_reached: three reminders per contact in 7 days', async () => {
    h.clock.set(NOON);
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-04-20' });
    for (let day = 0; day < 3; day++) {
      h.clock.set(new Date(Date.parse(NOON) + day * 24 * HOUR));
      expect(await remind(biz, due.id), `day ${day}`).toMatchObject({ sent: true });
    }
    h.clock.set(new Date(Date.parse(NOON) + 3 * 24 * HOUR));
    expect(await remind(biz, due.id)).toMatchObject({ sent: false, reason: 'max_reached' });
    // The first reminder leaves the 7-day window exactly 7 days after it went out.
    h.clock.set(new Date(Date.parse(NOON) + 7 * 24 * HOUR - 1));
    expect(await remind(biz, due.id)).toMatchObject({ sent: false, reason: 'max_reached' });
    h.clock.set(new Date(Date.parse(NOON) + 7 * 24 * HOUR));
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(4);
    expect(await reminderEvents(biz.business.id)).toHaveLength(4);
  });

  it('quiet_hours: only between 09:00 and 21:00 in the business time zone', async () => {
    const biz = await h.newBusiness({ timezone: 'America/New_York' });
    // 2026-04-01 is in daylight time in New York (UTC-4).
    const cases: [string, boolean][] = [
      ['2026-04-01T12:59:59.000Z', false], // 08:59:59
      ['2026-04-01T13:00:00.000Z', true], // 09:00
      ['2026-04-02T00:59:59.000Z', true], // 20:59:59
      ['2026-04-02T01:00:00.000Z', false], // 21:00
      ['2026-04-02T05:00:00.000Z', false], // 01:00
    ];
    for (const [at, sent] of cases) {
      h.clock.set(at);
      const due = await newDue(biz, { due_date: '2026-04-20' });
      const result = await remind(biz, due.id);
      expect(result, at).toEqual({ sent, reason: sent ? null : 'quiet_hours', template: 'reminder_upcoming' });
      if (!sent) await expectNothingRecorded(biz, due);
    }
  });

  it('reports the first protection that applies, in PRODUCT order', async () => {
    h.clock.set(NOON);
    const biz = await h.newBusiness();
    const quietAt = '2026-04-01T16:00:00.000Z'; // 21:30 in Kolkata

    // too_soon before quiet_hours
    const a = await newDue(biz, { due_date: '2026-04-20' });
    expect(await remind(biz, a.id)).toMatchObject({ sent: true });
    h.clock.set(quietAt);
    expect(await remind(biz, a.id)).toMatchObject({ reason: 'too_soon' });

    // max_reached before quiet_hours (the last reminder is more than 24 hours old)
    const b = await newDue(biz, { due_date: '2026-04-20' });
    for (const day of [0, 1, 2]) {
      h.clock.set(new Date(Date.parse(NOON) + day * 24 * HOUR));
      expect(await remind(biz, b.id)).toMatchObject({ sent: true });
    }
    h.clock.set(new Date(Date.parse(quietAt) + 3 * 24 * HOUR));
    expect(await remind(biz, b.id)).toMatchObject({ reason: 'max_reached' });
    // too_soon before max_reached
    h.clock.set(new Date(Date.parse(NOON) + 2 * 24 * HOUR + HOUR));
    expect(await remind(biz, b.id)).toMatchObject({ reason: 'too_soon' });

    // paused before too_soon; no_phone before paused; opted_out before paused
    const noPhone = await newDue(biz, { due_date: '2026-04-20', contact_phone: null });
    const optedOut = await newDue(biz, { due_date: '2026-04-20' });
    await h.services.chatInbound.handle({
      messages: [{ id: `wamid.stop.${optedOut.id}`, from: optedOut.contact_phone, text: 'Stop' }],
      statuses: [],
    });
    await h.services.businesses.update(biz.business.id, { remindersPaused: true });
    expect(await remind(biz, b.id)).toMatchObject({ reason: 'paused' });
    expect(await remind(biz, noPhone.id)).toMatchObject({ reason: 'no_phone' });
    expect(await remind(biz, optedOut.id)).toMatchObject({ reason: 'opted_out' });
  });

  it('counts outcomes in the reminders metric', async () => {
    const metrics = await h.request('GET', '/metrics');
    expect(metrics.text).toMatch(/reminders_total\{outcome="sent"\} \d+/);
    expect(metrics.text).toMatch(/reminders_total\{outcome="quiet_hours"\} \d+/);
  });
});
