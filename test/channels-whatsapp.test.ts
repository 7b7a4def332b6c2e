import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChannelError } from '../src/channels/channel.js';
import { WhatsAppChannel } from '../src/channels/whatsapp.js';
import { instantAt } from '../src/lib/dates.js';
import { RETRY_DELAYS_MS } from '../src/reminders/service.js';
import { csrfOf, DashboardClient } from './helpers/dashboard.js';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';
import { type Harness, startHarness } from './helpers/harness.js';

const TOKEN = 'EAAG-test-token';
const PHONE_NUMBER_ID = '109876543210';

let graph: FakeGraphApi;
let base: string;
let h: Harness;

beforeAll(async () => {
  graph = new FakeGraphApi();
  base = `${await graph.start()}/v21.0`;
  h = await startHarness({
    // 12:00 in Kolkata. Before any other file's dues: see reminders-scheduler.test.ts.
    now: '2012-06-01T06:30:00.000Z',
    env: {
      CHAT_CHANNEL: 'whatsapp',
      WHATSAPP_APP_SECRET: 'channel-test-app-secret',
      WHATSAPP_API_BASE: base,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      WHATSAPP_TOKEN: TOKEN,
    },
  });
});
afterAll(async () => {
  await h.close();
  await graph.close();
});
beforeEach(() => {
  graph.mode = 'ok';
  graph.requests.length = 0;
});

describe('WhatsApp channel adapter', () => {
  const channel = () => new WhatsAppChannel({ apiBase: base, phoneNumberId: PHONE_NUMBER_ID, token: TOKEN });

  it('posts a template message in the Cloud API shape and returns its message id', async () => {
    const result = await channel().send({
      kind: 'template',
      to: '919876543210',
      template: 'reminder_due_today',
      language: 'pt-BR',
      parameters: ['Ravi Kumar', 'Sharma Textiles', '₹1,23,450.00', '5 Mar 2026', 'https://pay.example.test/pay/abc'],
    });
    expect(result).toEqual({ messageId: 'wamid.fake1' });
    expect(graph.requests).toHaveLength(1);
    const [req] = graph.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe(`/v21.0/${PHONE_NUMBER_ID}/messages`);
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '919876543210',
      type: 'template',
      template: {
        name: 'reminder_due_today',
        language: { code: 'pt_BR' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ravi Kumar' },
              { type: 'text', text: 'Sharma Textiles' },
              { type: 'text', text: '₹1,23,450.00' },
              { type: 'text', text: '5 Mar 2026' },
              { type: 'text', text: 'https://pay.example.test/pay/abc' },
            ],
          },
        ],
      },
    });
  });

  it('posts a text reply in the Cloud API shape', async () => {
    await channel().send({ kind: 'text', to: '919876543210', text: 'hello' });
    expect(graph.requests[0]?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '919876543210',
      type: 'text',
      text: { preview_url: false, body: 'hello' },
    });
  });

  it('turns a non-2xx answer into a ChannelError carrying Meta error', async () => {
    graph.mode = 'fail';
    graph.failStatus = 400;
    const error = await channel()
      .send({ kind: 'text', to: '919876543210', text: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelError);
    expect((error as ChannelError).message).toBe('WhatsApp refused the message (HTTP 400)');
    expect((error as ChannelError).detail).toContain('Invalid parameter');
  });

  it('turns a timeout into a ChannelError', async () => {
    graph.mode = 'hang';
    const slow = new WhatsAppChannel({ apiBase: base, phoneNumberId: PHONE_NUMBER_ID, token: TOKEN, timeoutMs: 200 });
    const error = await slow.send({ kind: 'text', to: '919876543210', text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelError);
    expect((error as Error).message).toBe('WhatsApp did not answer within 200 ms');
  });

  it('turns an unreachable API into a ChannelError', async () => {
    const nowhere = new WhatsAppChannel({ apiBase: 'http://127.0.0.1:9/v21.0', phoneNumberId: '1', token: 't' });
    const error = await nowhere.send({ kind: 'text', to: '1', text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelError);
    expect((error as Error).message).toBe('WhatsApp could not be reached');
  });
});

describe('reminders over WhatsApp', () => {
  async function newDue(biz: Awaited<ReturnType<Harness['newBusiness']>>, dueDate: string) {
    const res = await biz.post('/v1/transactions', {
      amount_paise: 250_075,
      due_date: dueDate,
      contact_name: `Buyer ${Math.random().toString(36).slice(2, 8)}`,
      contact_phone: `+91 76${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  }

  it('sends a manual reminder as the approved template with the business language', async () => {
    h.clock.set('2012-06-01T06:30:00.000Z');
    const biz = await h.newBusiness({ name: 'Gupta Hardware', language: 'hi' });
    const due = await newDue(biz, '2012-06-01');
    const res = await biz.post(`/v1/transactions/${due.id}/remind`, {});
    expect(res.body).toEqual({ data: { sent: true, reason: null, template: 'reminder_due_today' } });
    expect(graph.requests).toHaveLength(1);
    const body = graph.requests[0]?.body;
    expect(body).toMatchObject({
      to: due.contact_phone,
      type: 'template',
      template: { name: 'reminder_due_today', language: { code: 'hi' } },
    });
    const params = body.template.components[0].parameters.map((p: { text: string }) => p.text);
    expect(params[0]).toBe(due.contact_name);
    expect(params[1]).toBe('Gupta Hardware');
    expect(params[2]).toBe(new Intl.NumberFormat('hi-IN', { style: 'currency', currency: 'INR' }).format(2500.75));
    expect(params[4]).toBe(due.pay_page_url);
    const row = await h.store.db
      .selectFrom('reminders')
      .select(['status', 'provider_message_id'])
      .where('transaction_id', '=', due.id)
      .where('kind', '=', 'manual')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'sent', provider_message_id: expect.stringMatching(/^wamid\.fake\d+$/) });
  });

  it('answers 422 when WhatsApp fails, and records nothing as sent', async () => {
    h.clock.set('2012-06-01T06:30:00.000Z');
    const biz = await h.newBusiness();
    const due = await newDue(biz, '2012-06-10');
    graph.mode = 'fail';
    graph.failStatus = 500;
    const res = await biz.post(`/v1/transactions/${due.id}/remind`, {});
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.code).toBe('unprocessable');
    expect(res.body.error.message).toContain('WhatsApp refused the message (HTTP 500)');
    expect(graph.requests).toHaveLength(1);
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(0);
    const events = await h.store.db
      .selectFrom('events')
      .select('id')
      .where('business_id', '=', biz.business.id)
      .where('type', '=', 'reminder.sent')
      .execute();
    expect(events).toEqual([]);
    const manual = await h.store.db
      .selectFrom('reminders')
      .select(['status', 'reason'])
      .where('transaction_id', '=', due.id)
      .where('kind', '=', 'manual')
      .execute();
    expect(manual).toEqual([{ status: 'failed', reason: expect.stringContaining('channel_error') }]);

    // The failed attempt does not count against the cooldown.
    graph.mode = 'ok';
    const retry = await biz.post(`/v1/transactions/${due.id}/remind`, {});
    expect(retry.body.data).toMatchObject({ sent: true });
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminder_count).toBe(1);
  });

  it('retries an automatic reminder after a channel failure, then fails it after the last retry', async () => {
    const tz = 'Asia/Kolkata';
    h.clock.set('2012-06-01T06:30:00.000Z');
    const signal = new AbortController().signal;
    // One step per due (on its date), so that each due has exactly one automatic reminder.
    const biz = await h.newBusiness({ reminderSteps: '0' });
    const job = { runOnce: () => h.services.reminders.runDue(signal, { businessId: biz.business.id }) };
    const first = await newDue(biz, '2012-06-05');
    const second = await newDue(biz, '2012-06-06');
    const row = async (id: string) =>
      h.store.db
        .selectFrom('reminders')
        .selectAll()
        .where('transaction_id', '=', id)
        .where('kind', '=', 'automatic')
        .executeTakeFirstOrThrow();

    // One failure, then success on the retry a minute later.
    graph.mode = 'fail';
    const at = instantAt(tz, '2012-06-05', 10, 0);
    h.clock.set(at);
    await job.runOnce();
    expect(await row(first.id)).toMatchObject({
      status: 'scheduled',
      attempts: 1,
      sent_at: null,
      scheduled_for: new Date(at.getTime() + 60_000).toISOString(),
    });
    expect((await biz.get(`/v1/transactions/${first.id}`)).body.data.reminder_count).toBe(0);
    graph.mode = 'ok';
    h.clock.set(new Date(at.getTime() + 60_000));
    await job.runOnce();
    expect(await row(first.id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect((await biz.get(`/v1/transactions/${first.id}`)).body.data.reminder_count).toBe(1);

    // Failing every time: retried after each delay, then failed for good. (The contact is another
    // one, so the first reminder's cooldown does not apply.)
    graph.mode = 'fail';
    let when = instantAt(tz, '2012-06-06', 10, 0);
    for (const delay of [...RETRY_DELAYS_MS, null]) {
      h.clock.set(when);
      await job.runOnce();
      const r = await row(second.id);
      if (delay === null) {
        expect(r).toMatchObject({ status: 'failed', attempts: RETRY_DELAYS_MS.length + 1 });
      } else {
        expect(r).toMatchObject({ status: 'scheduled', scheduled_for: new Date(when.getTime() + delay).toISOString() });
        when = new Date(when.getTime() + delay);
      }
    }
    expect((await biz.get(`/v1/transactions/${second.id}`)).body.data.reminder_count).toBe(0);
  });
});

describe('dashboard sign-in over WhatsApp', () => {
  it('sends the code as the authentication template with its copy-code button, and the code signs in', async () => {
    const biz = await h.newBusiness({ name: 'Gupta Hardware', language: 'hi' });
    const client = new DashboardClient(h);
    const csrf = csrfOf((await client.get('/dashboard/login')).text);
    const sent = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: biz.business.phone,
      action: 'send',
    });
    expect(sent.status, sent.text).toBe(200);
    // a business-initiated message: only an approved template is delivered, never free text
    expect(graph.requests).toHaveLength(1);
    const body = graph.requests[0]?.body;
    const code = body.template.components[0].parameters[0].text as string;
    expect(code).toMatch(/^\d{6}$/);
    expect(body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: biz.business.phone,
      type: 'template',
      template: {
        name: 'dashboard_sign_in_code',
        language: { code: 'hi' },
        components: [
          { type: 'body', parameters: [{ type: 'text', text: code }] },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
        ],
      },
    });
    const done = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: biz.business.phone,
      code,
      action: 'verify',
    });
    expect(done.status, done.text).toBe(303);
    expect(done.location).toBe('/dashboard');
    expect((await client.get('/dashboard')).status).toBe(200);
  });
});
