import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInByLink } from './helpers/dashboard.js';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { postWhatsAppWebhook, replyToWhatsApp, whatsappStatusPayload } from './helpers/whatsapp-inbound.js';

/** GET /v1/messaging/usage and the dashboard's reminders cost: each message priced by its reported category. */

const APP_SECRET = 'usage-test-app-secret';
let graph: FakeGraphApi;
let base: string;

const at = (day: string, hour = 12) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00+05:30`).toISOString();
const DAY = 24 * 60 * 60_000;

beforeAll(async () => {
  graph = new FakeGraphApi();
  base = `${await graph.start()}/v21.0`;
});
afterAll(() => graph.close());

function whatsappEnv(extra: Record<string, string> = {}) {
  return {
    CHAT_CHANNEL: 'whatsapp',
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_API_BASE: base,
    WHATSAPP_PHONE_NUMBER_ID: '109876543210',
    WHATSAPP_TOKEN: 'usage-token',
    ...extra,
  };
}

function freshPhone(): string {
  return `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
}

async function newDue(biz: TestBusiness, amount = 100_000) {
  const res = await biz.post('/v1/transactions', {
    amount_paise: amount,
    due_date: '2030-08-30',
    contact_name: `Usage Buyer ${randomBytes(3).toString('hex')}`,
    contact_phone: freshPhone(),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; contact_phone: string };
}

/** Reminds the due now and returns the wamid of the message. */
async function remind(biz: TestBusiness, dueId: string): Promise<string> {
  const res = await biz.post(`/v1/transactions/${dueId}/remind`, {});
  expect(res.body.data, res.text).toMatchObject({ sent: true });
  return graph.requests.at(-1)?.messageId as string;
}

function priced(h: Harness, id: string, category: string, billable = true, status = 'delivered') {
  return postWhatsAppWebhook(
    h,
    APP_SECRET,
    whatsappStatusPayload([{ id, status, pricing: { billable, pricing_model: 'PMP', category } }]),
  );
}

const empty = { count: 0, cost_paise: 0 };

describe('GET /v1/messaging/usage', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ now: at('2030-08-05'), env: whatsappEnv() });
  });
  afterAll(() => h.close());

  it("counts and costs a month's messages by the category their statuses reported, India's rates by default", async () => {
    h.clock.set(at('2030-08-05'));
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await remind(biz, (await newDue(biz)).id));
    const [first = '', second = '', third = ''] = ids;
    await priced(h, first, 'utility');
    // A later status repeats the pricing: counted once.
    await priced(h, first, 'utility', true, 'read');
    await priced(h, second, 'marketing', true, 'sent');
    // An owner's command answered with free text, reported as an unbillable service message.
    await replyToWhatsApp(h, APP_SECRET, biz.business.phone as string, 'help');
    await priced(h, graph.requests.at(-1)?.messageId as string, 'service', false);
    expect(third).not.toBe('');

    const res = await biz.get('/v1/messaging/usage?month=2030-08');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      data: {
        month: '2030-08',
        messages: 4,
        cost_paise: 97.5,
        categories: {
          utility: { count: 1, cost_paise: 11.5 },
          marketing: { count: 1, cost_paise: 86 },
          authentication: empty,
          service: { count: 1, cost_paise: 0 },
        },
        unpriced: 1,
      },
    });
    // Without a month: the business's current month.
    expect((await biz.get('/v1/messaging/usage')).body).toEqual(res.body);
    // Another month, another business: nothing.
    expect((await biz.get('/v1/messaging/usage?month=2030-07')).body.data).toMatchObject({
      messages: 0,
      cost_paise: 0,
    });
    expect((await other.get('/v1/messaging/usage?month=2030-08')).body.data).toEqual({
      month: '2030-08',
      messages: 0,
      cost_paise: 0,
      categories: { utility: empty, marketing: empty, authentication: empty, service: empty },
      unpriced: 0,
    });
  });

  it('counts a month in the business time zone', async () => {
    h.clock.set('2030-08-31T19:00:00.000Z'); // 1 September 00:30 in Kolkata
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    h.clock.set('2030-09-01T04:00:00.000Z');
    await priced(h, await remind(biz, due.id), 'utility');
    expect((await biz.get('/v1/messaging/usage?month=2030-08')).body.data.messages).toBe(0);
    expect((await biz.get('/v1/messaging/usage?month=2030-09')).body.data).toMatchObject({
      messages: 1,
      cost_paise: 11.5,
    });
  });

  it('answers 400 naming month for a month not written YYYY-MM, 400 for an unknown parameter, 401 without a key', async () => {
    const biz = await h.newBusiness();
    for (const month of ['2030-13', '2030-00', '2030-8', 'august', '', '2030-08-01']) {
      const res = await biz.get(`/v1/messaging/usage?month=${encodeURIComponent(month)}`);
      expect(res.status, month).toBe(400);
      expect(res.body.error.field, month).toBe('month');
    }
    expect((await biz.get('/v1/messaging/usage?months=2030-08')).status).toBe(400);
    expect((await h.request('GET', '/v1/messaging/usage')).status).toBe(401);
  });

  it("shows this month's reminders cost beside the money collected after reminders on the dashboard, in English and Hindi", async () => {
    h.clock.set(at('2030-08-10'));
    const biz = await h.newBusiness();
    const reminded = await newDue(biz, 300_000);
    const notReminded = await newDue(biz, 500_000);
    await priced(h, await remind(biz, reminded.id), 'utility');
    h.clock.advance(DAY);
    // Paid after its reminder: counted; the other due's payment is not.
    expect((await biz.post(`/v1/transactions/${reminded.id}/payments`, { amount_paise: 120_000 })).status).toBe(201);
    expect((await biz.post(`/v1/transactions/${notReminded.id}/payments`, { amount_paise: 500_000 })).status).toBe(201);
    const page = await (await signInByLink(h, biz.business.id)).get('/dashboard');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Reminders cost this month<\/div><div class="value">₹0\.12</);
    expect(page.text).toMatch(/Collected after reminders this month<\/div><div class="value">₹1,200\.00</);

    const hindi = await h.newBusiness({ language: 'hi' });
    const hindiPage = await (await signInByLink(h, hindi.business.id)).get('/dashboard');
    expect(hindiPage.text).toContain('इस महीने रिमाइंडर का खर्च');
    expect(hindiPage.text).toContain('इस महीने रिमाइंडर के बाद मिला');
  });
});

describe('WHATSAPP_PRICES', () => {
  it('prices messages from the table it sets', async () => {
    const h = await startHarness({ now: at('2030-08-05'), env: whatsappEnv({ WHATSAPP_PRICES: 'utility=0.2' }) });
    try {
      const biz = await h.newBusiness();
      await priced(h, await remind(biz, (await newDue(biz)).id), 'utility');
      expect((await biz.get('/v1/messaging/usage?month=2030-08')).body.data.categories.utility).toEqual({
        count: 1,
        cost_paise: 20,
      });
    } finally {
      await h.close();
    }
  });
});
