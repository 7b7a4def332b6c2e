import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RazorpayGateway } from '../src/payments-gateway/razorpay.js';
import { type FakeLink, type FakeRazorpay, razorpayEnv, startFakeRazorpay } from './helpers/fake-razorpay.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * "Pay online" on the buyer's account page (PRODUCT parts 11, 18, 26) against a fake Razorpay over
 * real HTTP: a payment link for the whole balance, and its payment_link.paid recorded as one
 * receipt on the contact, oldest due first, the rest as credit, never twice.
 */

const NOW = '2026-11-24T06:30:00.000Z';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let fake: FakeRazorpay;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeRazorpay();
  h = await startHarness({
    now: NOW,
    env: { ...razorpayEnv(fake), PUBLIC_BASE_URL: 'https://pay.example.in' },
    gateway: new RazorpayGateway({
      apiBase: fake.base,
      keyId: fake.keyId,
      keySecret: fake.keySecret,
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
    }),
  });
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.mode = 'ok';
});

interface Account {
  contactId: string;
  path: string;
  dues: string[];
}

/** A buyer with dues of these amounts, the first the oldest. */
async function account(biz: TestBusiness, amounts: number[]): Promise<Account> {
  const made = await biz.post('/v1/contacts', { name: `Ravi ${randomUUID().slice(0, 6)}`, phone: '+91 98765 43210' });
  expect(made.status, made.text).toBe(201);
  const dues: string[] = [];
  for (const [i, amount] of amounts.entries()) {
    const res = await biz.post('/v1/transactions', {
      contact_id: made.body.data.id,
      amount_paise: amount,
      due_date: `2026-12-${String(10 + i).padStart(2, '0')}`,
    });
    expect(res.status, res.text).toBe(201);
    dues.push(res.body.data.id);
  }
  return { contactId: made.body.data.id, path: new URL(made.body.data.account_url).pathname, dues };
}

const payOnline = (acc: Pick<Account, 'path'>) =>
  h.request('POST', `${acc.path}/online`, { payload: '', headers: FORM });

/** "Pay online" followed: the link the buyer was sent to. */
async function linkOf(acc: Account): Promise<FakeLink> {
  const res = await payOnline(acc);
  expect(res.status, res.text).toBe(303);
  const link = fake.links.find((l) => l.short_url === res.headers.location);
  expect(link, res.headers.location as string).toBeDefined();
  return link as FakeLink;
}

/** A signed payment_link.paid as Razorpay sends it, with the parts a test wants changed. */
function webhook(p: { linkId: string; reference: string; linkAmount: number; amount: number; currency?: string }) {
  const paymentId = `pay_${randomUUID().replace(/-/g, '').slice(0, 14)}`;
  const currency = p.currency ?? 'INR';
  const body = JSON.stringify({
    entity: 'event',
    event: 'payment_link.paid',
    payload: {
      payment_link: {
        entity: {
          id: p.linkId,
          amount: p.linkAmount,
          amount_paid: p.amount,
          currency,
          reference_id: p.reference,
          status: 'paid',
        },
      },
      payment: { entity: { id: paymentId, amount: p.amount, currency, status: 'captured', method: 'upi' } },
    },
  });
  const send = () =>
    h.request('POST', '/channels/razorpay/webhook', {
      payload: body,
      headers: {
        'content-type': 'application/json',
        'x-razorpay-signature': createHmac('sha256', fake.webhookSecret).update(body).digest('hex'),
      },
    });
  return { paymentId, send };
}

const paid = (link: FakeLink, amount = link.amount) =>
  webhook({ linkId: link.id, reference: link.reference_id, linkAmount: link.amount, amount });

async function contactOf(biz: TestBusiness, acc: Account) {
  return (await biz.get(`/v1/contacts/${acc.contactId}`)).body.data;
}
async function receiptsOf(biz: TestBusiness, acc: Account) {
  return (await biz.get(`/v1/contacts/${acc.contactId}/payments`)).body.data;
}

describe('POST /a/<token>/online', () => {
  it('shows "Pay online" for the balance and sends the buyer to a link of it, reused while the balance stays', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [1_000, 2_500]);
    const page = await h.request('GET', acc.path);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="${acc.path}/online"`);
    expect(page.text).toMatch(/id="pay-online"[^>]*>Pay ₹35\.00 online</);

    const before = fake.links.length;
    const link = await linkOf(acc);
    expect(link).toMatchObject({
      amount: 3_500,
      currency: 'INR',
      customer: { contact: '+919876543210' },
      callback_url: `https://pay.example.in${acc.path}`,
      callback_method: 'get',
      status: 'created',
    });
    // Its reference is its own (a gateway reference is unique per link): not the contact's id.
    expect(link.reference_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(link.reference_id).not.toBe(acc.contactId);
    expect((await linkOf(acc)).id).toBe(link.id);
    expect(fake.links.length).toBe(before + 1);

    // The balance changes: the old link is cancelled, a new one asks for the new balance.
    await biz.post('/v1/transactions', { contact_id: acc.contactId, amount_paise: 500, due_date: '2026-12-20' });
    const next = await linkOf(acc);
    expect(next.id).not.toBe(link.id);
    expect(next.amount).toBe(4_000);
    expect(next.reference_id).not.toBe(link.reference_id);
    expect(link.status).toBe('cancelled');
  });

  it('offers nothing when nothing is owed, and answers an unknown token 404', async () => {
    const biz = await h.newBusiness();
    const settled = await account(biz, [1_000]);
    expect((await biz.post(`/v1/contacts/${settled.contactId}/payments`, { amount_paise: 1_500 })).status).toBe(201);
    const before = fake.links.length;
    const page = await h.request('GET', settled.path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="balance"');
    expect(page.text).not.toContain('pay-online');
    // A stale form (the balance was paid meanwhile): back to the page, no link made.
    const res = await payOnline(settled);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(settled.path);
    expect(fake.links.length).toBe(before);

    const unknown = await payOnline({ path: '/a/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(unknown.status).toBe(404);
    expect((await payOnline({ path: '/a/not-a-token!' })).status).toBe(404);
    expect(fake.links.length).toBe(before);
  });

  it('shows the page again with a message when the gateway fails, never a 500', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [1_000]);
    fake.mode = 503;
    const res = await payOnline(acc);
    expect(res.status).toBe(502);
    expect(res.text).toContain('id="online-error"');
    expect(res.text).toContain('Online payment is not available right now.');
    fake.mode = 'ok';
    expect((await linkOf(acc)).amount).toBe(1_000);
  });
});

describe('payment_link.paid for an account link', () => {
  it('records one receipt on the contact, oldest due first, the rest as credit', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [1_000, 2_500]);
    const link = await linkOf(acc);
    // Part of the balance is paid by other means before the buyer pays the link: the link's whole
    // amount is still money received, and what no due takes becomes credit.
    expect((await biz.post(`/v1/contacts/${acc.contactId}/payments`, { amount_paise: 500 })).status).toBe(201);
    const pay = paid(link);
    expect((await pay.send()).status).toBe(200);

    const receipts = await receiptsOf(biz, acc);
    expect(receipts).toHaveLength(2);
    expect(receipts[0]).toMatchObject({
      amount_paise: 3_500,
      applied_paise: 3_000,
      credit_paise: 500,
      source: 'gateway',
      utr: pay.paymentId,
      payment_method: 'upi',
      reversed_at: null,
    });
    expect(receipts[0].allocations).toEqual([
      { transaction_id: acc.dues[0], amount_paise: 500 },
      { transaction_id: acc.dues[1], amount_paise: 2_500 },
    ]);
    expect(await contactOf(biz, acc)).toMatchObject({ outstanding_paise: 0, credit_paise: 500, balance_paise: -500 });
    for (const id of acc.dues) expect((await biz.get(`/v1/transactions/${id}`)).body.data.status).toBe('paid');
    expect((await biz.get('/v1/payments?unapplied=true')).body.data).toEqual([]);
    const page = await h.request('GET', acc.path);
    expect(page.text).not.toContain('pay-online');
  });

  it('is recorded once, however often and however concurrently it is delivered', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [1_000, 1_000, 1_000]);
    const link = await linkOf(acc);
    const pay = paid(link);
    const answers = await Promise.all([pay.send(), pay.send(), pay.send()]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await pay.send()).status).toBe(200);
    const receipts = await receiptsOf(biz, acc);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ amount_paise: 3_000, credit_paise: 0, utr: pay.paymentId });
    expect(await contactOf(biz, acc)).toMatchObject({ balance_paise: 0, credit_paise: 0 });
    const summary = (await biz.get('/v1/summary')).body.data;
    expect(summary.paid_this_month_paise).toBe(3_000);
  });

  it('records nothing on the account for another currency, a link it did not make or another link amount', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [2_000]);
    const link = await linkOf(acc);
    const reports = {
      currency: webhook({
        linkId: link.id,
        reference: link.reference_id,
        linkAmount: 2_000,
        amount: 2_000,
        currency: 'USD',
      }),
      unknown_link: webhook({
        linkId: 'plink_notours00001',
        reference: link.reference_id,
        linkAmount: 2_000,
        amount: 2_000,
      }),
      link_amount: webhook({ linkId: link.id, reference: link.reference_id, linkAmount: 200, amount: 200 }),
    };
    for (const report of Object.values(reports)) expect((await report.send()).status).toBe(200);

    expect(await receiptsOf(biz, acc)).toEqual([]);
    expect(await contactOf(biz, acc)).toMatchObject({ balance_paise: 2_000 });
    const unapplied = (await biz.get('/v1/payments?unapplied=true&limit=10')).body.data as {
      gateway_payment_id: string;
      reason: string;
      contact_id: string | null;
      transaction_id: string | null;
      unapplied_paise: number;
    }[];
    expect(
      Object.fromEntries(unapplied.map((u) => [u.gateway_payment_id, [u.reason, u.contact_id, u.transaction_id]])),
    ).toEqual(
      Object.fromEntries(Object.entries(reports).map(([reason, r]) => [r.paymentId, [reason, acc.contactId, null]])),
    );
    // The link is still open: the buyer can still pay it.
    expect((await linkOf(acc)).id).toBe(link.id);
  });

  it('acknowledges a reference that names no due and no account link, recording nothing', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [2_000]);
    const stray = webhook({ linkId: 'plink_stray0000001', reference: acc.contactId, linkAmount: 2_000, amount: 2_000 });
    expect((await stray.send()).status).toBe(200);
    expect(await receiptsOf(biz, acc)).toEqual([]);
    expect(await contactOf(biz, acc)).toMatchObject({ balance_paise: 2_000 });
  });
});
