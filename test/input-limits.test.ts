import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signInByLink } from './helpers/dashboard.js';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { whatsappMessagePayload, whatsappSignature } from './helpers/whatsapp-inbound.js';

/** Input at the edges never answers 500: the last dates, deep JSON, NUL in signed webhooks. */

const NOW = '2026-11-21T06:30:00.000Z';
const APP_SECRET = 'limits-app-secret-0123456789';
const RAZORPAY_SECRET = 'limits-razorpay-secret';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    now: NOW,
    env: { WHATSAPP_APP_SECRET: APP_SECRET, RAZORPAY_WEBHOOK_SECRET: RAZORPAY_SECRET },
  });
});
afterAll(() => h.close());
beforeEach(() => h.clock.set(NOW));

const LAST_DATES = ['9999-12-02', '9999-12-25', '9999-12-31'];

async function dueDates(biz: TestBusiness): Promise<string[]> {
  const res = await biz.get('/v1/transactions?limit=200');
  expect(res.status, res.text).toBe(200);
  return (res.body.data as { due_date: string }[]).map((d) => d.due_date.slice(0, 10)).sort();
}

describe('due dates up to 9999-12-31', () => {
  it('POST /v1/transactions takes them, once or repeating; steps after 9999-12-31 are not scheduled', async () => {
    const biz = await h.newBusiness();
    for (const due_date of LAST_DATES) {
      for (const recurrence of [undefined, { interval: 'weekly' }, { interval: 'monthly' }]) {
        const res = await biz.post('/v1/transactions', {
          amount_paise: 100,
          due_date,
          contact_name: 'Last Day',
          ...(recurrence && { recurrence }),
        });
        expect(res.status, `${due_date} ${JSON.stringify(recurrence)}: ${res.text}`).toBe(201);
        const read = await biz.get(`/v1/transactions/${res.body.data.id}`);
        expect(read.status).toBe(200);
        // The default steps are -3, 0, 7 and 30 days from the due date: only those up to 9999-12-31.
        const expected = [-3, 0, 7, 30].filter(
          (d) => Date.parse(`${due_date}T00:00:00Z`) + d * 86_400_000 < Date.UTC(10_000, 0, 1),
        );
        expect(read.body.data.reminders).toHaveLength(expected.length);
      }
    }
  });

  it('PATCH /v1/transactions/{id} moves a due to them', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    for (const due_date of LAST_DATES) {
      const res = await biz.patch(`/v1/transactions/${due.id}`, { due_date });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.due_date).toBe(`${due_date}T00:00:00.000Z`);
    }
  });

  it('an import takes them, as JSON and as CSV', async () => {
    const biz = await h.newBusiness();
    const json = await biz.post('/v1/transactions/import', {
      rows: LAST_DATES.map((due_date) => ({ contact_name: 'Import Last', amount_paise: 100, due_date })),
    });
    expect(json.status, json.text).toBe(201);
    const csv = await biz.post('/v1/transactions/import', undefined, {
      payload: `contact_name,amount,due_date\n${LAST_DATES.map((d) => `Csv Last,1,${d}`).join('\n')}`,
      headers: { 'content-type': 'text/csv' },
    });
    expect(csv.status, csv.text).toBe(201);
    expect(await dueDates(biz)).toEqual([...LAST_DATES, ...LAST_DATES].sort());
  });

  it('the dashboard form takes them', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    for (const due_date of LAST_DATES) {
      const res = await client.submit('/dashboard/dues/new', '/dashboard/dues', {
        contact_name: 'Form Last',
        amount: '12',
        due_date,
        once: randomBytes(12).toString('hex'),
      });
      expect(res.status, res.text).toBe(303);
    }
    expect(await dueDates(biz)).toEqual(LAST_DATES);
  });

  it('a chat "add" with such a date is answered, never a 500', async () => {
    const phone = `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
    await h.newBusiness({ phone: `+${phone}` });
    for (const date of ['02/12/9999', '31/12/9999']) {
      const raw = JSON.stringify(whatsappMessagePayload(phone, `add Ravi Kumar 1500 ${date}`));
      const res = await h.request('POST', '/channels/whatsapp/webhook', {
        payload: raw,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(raw, APP_SECRET) },
      });
      expect(res.status, res.text).toBe(200);
    }
  });

  it('a series ends at 9999-12-31: its next date would be in year 10000', async () => {
    const biz = await h.newBusiness();
    const weekly = await newDue(biz, { due_date: '9999-12-25', recurrence: { interval: 'weekly' } });
    const monthly = await newDue(biz, { due_date: '9999-12-31', recurrence: { interval: 'monthly' } });
    h.clock.set('9999-12-31T06:30:00.000Z');
    // Other tests' series in this file catch up to 9999-12-31 too; then nothing is left to do.
    let rounds = 0;
    while ((await h.services.transactions.repeatArrived()) > 0) expect(++rounds).toBeLessThan(10);
    h.clock.set(NOW); // the business's plan has long expired in year 9999: read as of today
    expect(await dueDates(biz)).toEqual(['9999-12-25', '9999-12-31']);
    for (const id of [weekly.id, monthly.id]) {
      expect((await biz.get(`/v1/transactions/${id}`)).status).toBe(200);
    }
  });
});

/** `depth` nested arrays around a value. */
const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('JSON nested deeper than 64 levels', () => {
  const cases: [string, string, (body: string) => string][] = [
    ['POST', '/v1/transactions', (deep) => `{"contact_name":${deep},"amount_paise":100,"due_date":"2026-12-01"}`],
    ['POST', '/v1/transactions/import', (deep) => `{"rows":[{"contact_name":${deep}}]}`],
    ['POST', '/v1/contacts', (deep) => `{"name":${deep}}`],
    ['POST', '/legacy/webhooks', (deep) => `{"url":${deep}}`],
  ];

  it('answers 400 on every route, with an Idempotency-Key or without', async () => {
    const biz = await h.newBusiness();
    for (const [method, url, body] of cases) {
      for (const depth of [65, 5000, 100_000]) {
        for (const key of [undefined, randomBytes(8).toString('hex')]) {
          const res = await h.request(method as 'POST', url, {
            payload: body(nested(depth)),
            headers: {
              'content-type': 'application/json',
              'x-api-key': biz.apiKey,
              ...(key && { 'idempotency-key': key }),
            },
          });
          expect(res.status, `${url} depth ${depth} key ${key}: ${res.text.slice(0, 200)}`).toBe(400);
        }
      }
    }
    expect(await dueDates(biz)).toEqual([]);
  });

  it('still reads 64 levels as JSON (refused by the schema, not the parser)', async () => {
    const biz = await h.newBusiness();
    const res = await h.request('POST', '/v1/transactions', {
      payload: `{"contact_name":${nested(63)},"amount_paise":100,"due_date":"2026-12-01"}`,
      headers: { 'content-type': 'application/json', 'x-api-key': biz.apiKey, 'idempotency-key': 'deep-64' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('contact_name');
  });

  it('answers 400 to signed webhooks too', async () => {
    const whatsapp = `{"object":"whatsapp_business_account","entry":${nested(5000)}}`;
    const wa = await h.request('POST', '/channels/whatsapp/webhook', {
      payload: whatsapp,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(whatsapp, APP_SECRET) },
    });
    expect(wa.status, wa.text).toBe(400);
    const razorpay = `{"event":"payment_link.paid","payload":${nested(5000)}}`;
    const rp = await h.request('POST', '/channels/razorpay/webhook', {
      payload: razorpay,
      headers: {
        'content-type': 'application/json',
        'x-razorpay-signature': createHmac('sha256', RAZORPAY_SECRET).update(razorpay).digest('hex'),
      },
    });
    expect(rp.status, rp.text).toBe(400);
  });
});

describe('NUL in a signed webhook payload', () => {
  it('WhatsApp: 200 and ignored', async () => {
    const phone = `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
    const biz = await h.newBusiness({ phone: `+${phone}` });
    for (const text of ['add Ravi\u0000 Kumar 1500', 'STOP\u0000']) {
      const raw = JSON.stringify(whatsappMessagePayload(phone, text, { name: 'Owner\u0000' }));
      const res = await h.request('POST', '/channels/whatsapp/webhook', {
        payload: raw,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(raw, APP_SECRET) },
      });
      expect(res.status, res.text).toBe(200);
    }
    const status = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        { id: 'W', changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.\u0000', status: 'read' }] } }] },
      ],
    });
    const res = await h.request('POST', '/channels/whatsapp/webhook', {
      payload: status,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(status, APP_SECRET) },
    });
    expect(res.status, res.text).toBe(200);
    expect(await dueDates(biz)).toEqual([]);
  });

  it('Razorpay: 200 and ignored', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    const variants = [
      { link: 'plink_1', reference: `${due.id}\u0000`, payment: 'pay_nul1', method: 'upi' },
      { link: 'plink_\u0000', reference: due.id, payment: 'pay_\u0000nul', method: 'upi' },
      { link: 'plink_2', reference: due.id, payment: 'pay_nul3', method: 'upi\u0000' },
    ];
    for (const v of variants) {
      const body = JSON.stringify({
        event: 'payment_link.paid',
        payload: {
          payment_link: { entity: { id: v.link, amount: 10_000, currency: 'INR', reference_id: v.reference } },
          payment: { entity: { id: v.payment, amount: 10_000, currency: 'INR', method: v.method } },
        },
      });
      const res = await h.request('POST', '/channels/razorpay/webhook', {
        payload: body,
        headers: {
          'content-type': 'application/json',
          'x-razorpay-signature': createHmac('sha256', RAZORPAY_SECRET).update(body).digest('hex'),
        },
      });
      expect(res.status, `${JSON.stringify(v)}: ${res.text}`).toBe(200);
    }
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.amount_paid_paise).toBe(0);
  });
});
