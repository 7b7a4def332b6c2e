import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signInByLink } from './helpers/dashboard.js';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { postWhatsAppWebhook, replyToWhatsApp, whatsappStatusPayload } from './helpers/whatsapp-inbound.js';

/**
 * WhatsApp's status webhooks: recorded per message, shown as the reminder step's `delivery`, and a
 * failure code acted on so that nothing is sent to the phone again in vain.
 */

const APP_SECRET = 'delivery-test-app-secret';
const signal = new AbortController().signal;
let graph: FakeGraphApi;
let h: Harness;

const at = (day: string, hour = 12) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00+05:30`).toISOString();
const DAY = 24 * 60 * 60_000;

beforeAll(async () => {
  graph = new FakeGraphApi();
  const base = `${await graph.start()}/v21.0`;
  h = await startHarness({
    now: at('2030-07-01'),
    env: {
      CHAT_CHANNEL: 'whatsapp',
      WHATSAPP_APP_SECRET: APP_SECRET,
      WHATSAPP_API_BASE: base,
      WHATSAPP_PHONE_NUMBER_ID: '109876543210',
      WHATSAPP_TOKEN: 'delivery-token',
    },
  });
});
afterAll(async () => {
  await h.close();
  await graph.close();
});
beforeEach(() => {
  graph.requests.length = 0;
});

function freshPhone(): string {
  return `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
}

async function newDue(biz: TestBusiness, dueDate: string, phone = freshPhone()) {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 42_000,
    due_date: dueDate,
    contact_name: `Delivery Buyer ${randomBytes(3).toString('hex')}`,
    contact_phone: phone,
  });
  expect(res.status, res.text).toBe(201);
  return { ...(res.body.data as { id: string; contact_id: string }), phone };
}

async function remind(biz: TestBusiness, dueId: string) {
  const res = await biz.post(`/v1/transactions/${dueId}/remind`, {});
  expect(res.status, res.text).toBe(200);
  return res.body.data as { sent: boolean; reason: string | null; template: string };
}

const lastWamid = () => graph.requests.at(-1)?.messageId as string;

type Step = { template: string; scheduled_for: string; status: string; reason: string | null; delivery: string | null };
async function stepsOf(biz: TestBusiness, dueId: string): Promise<Step[]> {
  const res = await biz.get(`/v1/transactions/${dueId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.reminders;
}

function status(id: string, value: string, extra: Record<string, unknown> = {}) {
  return postWhatsAppWebhook(h, APP_SECRET, whatsappStatusPayload([{ id, status: value, ...extra }]));
}
const failed = (id: string, code: number) =>
  status(id, 'failed', { errors: [{ code, title: 'failure', error_data: { details: 'x' } }] });

describe('delivery statuses', () => {
  it('show on the step of a manual reminder, listed at the moment it was sent, only moving forward', async () => {
    h.clock.set(at('2030-07-01'));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-07-30');
    h.clock.set(at('2030-07-02', 15));
    expect(await remind(biz, due.id)).toMatchObject({ sent: true, template: 'reminder_upcoming' });
    const wamid = lastWamid();
    const manual = () =>
      stepsOf(biz, due.id).then((steps) => steps.find((s) => s.scheduled_for === at('2030-07-02', 15)));
    expect(await manual()).toEqual({
      template: 'reminder_upcoming',
      scheduled_for: at('2030-07-02', 15),
      status: 'sent',
      reason: null,
      delivery: null,
    });
    // Oldest first: the manual step comes before the sequence's steps, all still ahead.
    expect((await stepsOf(biz, due.id)).map((s) => [s.status, s.delivery])).toEqual([
      ['sent', null],
      ['scheduled', null],
      ['scheduled', null],
      ['scheduled', null],
      ['scheduled', null],
    ]);
    for (const [sent, shown] of [
      ['sent', 'sent'],
      ['read', 'read'],
      ['delivered', 'read'],
      ['sent', 'read'],
    ] as const) {
      await status(wamid, sent);
      expect((await manual())?.delivery).toBe(shown);
    }
    // The dashboard's due page says it too.
    const page = await (await signInByLink(h, biz.business.id)).get(`/dashboard/dues/${due.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sent · read');
  });

  it("show on an automatic step, and another message's status changes nothing", async () => {
    h.clock.set(at('2030-07-01'));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-07-10');
    h.clock.set(at('2030-07-07', 10));
    expect(await h.services.reminders.runDue(signal, { businessId: biz.business.id })).toEqual(['sent']);
    await status(lastWamid(), 'delivered');
    await status('wamid.unknown-to-us', 'read');
    expect((await stepsOf(biz, due.id))[0]).toMatchObject({ status: 'sent', delivery: 'delivered' });
  });

  it('131026 marks the contact unreachable: no_phone until its phone changes, nothing sent meanwhile', async () => {
    h.clock.set(at('2030-07-01'));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-07-20');
    h.clock.set(at('2030-07-02'));
    await remind(biz, due.id);
    await failed(lastWamid(), 131026);
    expect((await stepsOf(biz, due.id))[0]).toMatchObject({ status: 'sent', delivery: 'failed' });

    h.clock.set(at('2030-07-04'));
    graph.requests.length = 0;
    expect(await remind(biz, due.id)).toMatchObject({ sent: false, reason: 'no_phone' });
    // The automatic step is cancelled too: no message goes to a phone that cannot receive it.
    h.clock.set(at('2030-07-17', 10));
    await h.services.reminders.runDue(signal, { businessId: biz.business.id });
    expect(
      (await stepsOf(biz, due.id)).find((s) => s.template === 'reminder_upcoming' && s.status !== 'sent'),
    ).toMatchObject({ status: 'skipped', reason: 'no_phone' });
    expect(graph.requests).toEqual([]);

    const patched = await biz.patch(`/v1/contacts/${due.contact_id}`, { phone: `+${freshPhone()}` });
    expect(patched.status, patched.text).toBe(200);
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
    expect(graph.requests).toHaveLength(1);
  });

  it('131026 holds until the phone writes to us: then it can receive again', async () => {
    h.clock.set(at('2030-07-01'));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-07-20');
    await remind(biz, due.id);
    await failed(lastWamid(), 131026);
    h.clock.advance(2 * DAY);
    expect(await remind(biz, due.id)).toMatchObject({ sent: false, reason: 'no_phone' });
    await replyToWhatsApp(h, APP_SECRET, due.phone, 'hello');
    h.clock.advance(25 * 60 * 60_000);
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
  });

  it('131050 opts the phone out (as STOP does) until START', async () => {
    h.clock.set(at('2030-07-01'));
    const [biz, other] = [await h.newBusiness(), await h.newBusiness()];
    const due = await newDue(biz, '2030-07-20');
    const sameBuyer = await newDue(other, '2030-07-20', due.phone);
    await remind(biz, due.id);
    await failed(lastWamid(), 131050);
    h.clock.advance(2 * DAY);
    expect(await remind(biz, due.id)).toMatchObject({ sent: false, reason: 'opted_out' });
    expect(await remind(other, sameBuyer.id)).toMatchObject({ sent: false, reason: 'opted_out' });
    await replyToWhatsApp(h, APP_SECRET, due.phone, 'START');
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
  });

  it('another failure code marks the delivery failed and nothing more', async () => {
    h.clock.set(at('2030-07-01'));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-07-20');
    await remind(biz, due.id);
    await failed(lastWamid(), 131000);
    expect((await stepsOf(biz, due.id))[0]?.delivery).toBe('failed');
    h.clock.advance(2 * DAY);
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
  });
});

describe('the 24-hour customer-service window', () => {
  it('sends a reminder to a buyer who wrote within 24 hours as free text, a template otherwise', async () => {
    h.clock.set(at('2030-07-01'));
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2030-07-20');
    await replyToWhatsApp(h, APP_SECRET, due.phone, 'kitna baaki hai?');
    h.clock.advance(60 * 60_000);
    graph.requests.length = 0;
    expect(await remind(biz, due.id)).toMatchObject({ sent: true, template: 'reminder_upcoming' });
    const [text] = graph.requests;
    expect(text?.body.type).toBe('text');
    expect(text?.body.text.body).toMatch(
      /^Hello Delivery Buyer \w+, a friendly reminder from Test Traders \w+: ₹420\.00 is due on 20 Jul 2030\. You can pay here: https:\/\/pay\.example\.test\/pay\//,
    );
    // Its step shows its delivery like any other.
    await status(text?.messageId as string, 'delivered');
    expect((await stepsOf(biz, due.id))[0]).toMatchObject({ status: 'sent', delivery: 'delivered' });

    // More than 24 hours after the buyer wrote: the template.
    h.clock.advance(DAY);
    graph.requests.length = 0;
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
    expect(graph.requests.map((r) => [r.body.type, r.body.template?.name])).toEqual([
      ['template', 'reminder_upcoming'],
    ]);
  });

  it('131047 (the window had closed) makes the next message a template', async () => {
    h.clock.set(at('2030-07-01'));
    const [a, b] = [await h.newBusiness(), await h.newBusiness()];
    const dueA = await newDue(a, '2030-07-20');
    const dueB = await newDue(b, '2030-07-20', dueA.phone);
    await replyToWhatsApp(h, APP_SECRET, dueA.phone, 'ok');
    graph.requests.length = 0;
    await remind(a, dueA.id);
    expect(graph.requests.map((r) => r.body.type)).toEqual(['text']);
    await failed(lastWamid(), 131047);
    // Still within 24 hours of the buyer's message by our clock, but WhatsApp said the window closed.
    h.clock.advance(60_000);
    graph.requests.length = 0;
    expect(await remind(b, dueB.id)).toMatchObject({ sent: true });
    expect(graph.requests.map((r) => [r.body.type, r.body.template?.name])).toEqual([
      ['template', 'reminder_upcoming'],
    ]);
  });
});
