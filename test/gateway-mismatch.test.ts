import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RazorpayGateway } from '../src/payments-gateway/razorpay.js';
import { newDue } from './helpers/dues.js';
import { type FakeLink, type FakeRazorpay, razorpayEnv, startFakeRazorpay } from './helpers/fake-razorpay.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * A signed payment_link.paid that does not match what this service asked the gateway for (another
 * currency, a link it did not create for that due, another link amount) records nothing on the due:
 * the money is kept as unapplied, with its reason.
 */

let fake: FakeRazorpay;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeRazorpay();
  h = await startHarness({
    now: '2026-11-24T06:30:00.000Z',
    env: razorpayEnv(fake),
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

async function dueWithLink(biz: TestBusiness) {
  const due = await newDue(biz, { amount_paise: 10_000, contact_name: 'Online Buyer' });
  const res = await h.request('POST', `${new URL(due.pay_page_url).pathname}/online`, {
    payload: '',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.status, res.text).toBe(303);
  const link = fake.links.find((l) => l.short_url === res.headers.location) as FakeLink;
  expect(link).toBeDefined();
  return { due, link };
}

/** A signed payment_link.paid as Razorpay sends it, with the parts a test wants changed. */
async function deliver(p: { linkId: string; reference: string; linkAmount: number; amount: number; currency: string }) {
  const paymentId = `pay_${randomUUID().replace(/-/g, '').slice(0, 14)}`;
  const body = JSON.stringify({
    entity: 'event',
    event: 'payment_link.paid',
    payload: {
      payment_link: {
        entity: {
          id: p.linkId,
          amount: p.linkAmount,
          amount_paid: p.amount,
          currency: p.currency,
          reference_id: p.reference,
          status: 'paid',
        },
      },
      payment: {
        entity: { id: paymentId, amount: p.amount, currency: p.currency, status: 'captured', method: 'upi' },
      },
    },
  });
  const res = await h.request('POST', '/channels/razorpay/webhook', {
    payload: body,
    headers: {
      'content-type': 'application/json',
      'x-razorpay-signature': createHmac('sha256', fake.webhookSecret).update(body).digest('hex'),
    },
  });
  expect(res.status, res.text).toBe(200);
  return paymentId;
}

async function expectNothingRecorded(biz: TestBusiness, dueId: string, pendingPaise = 10_000) {
  const due = (await biz.get(`/v1/transactions/${dueId}`)).body.data;
  expect(due).toMatchObject({ status: 'pending', amount_paid_paise: 0, balance_paise: 10_000 });
  expect((await biz.get(`/v1/transactions/${dueId}/payments`)).body.data).toEqual([]);
  expect((await biz.get('/v1/summary')).body.data.pending.paise).toBe(pendingPaise);
}

async function unapplied(biz: TestBusiness) {
  const res = await biz.get('/v1/payments?unapplied=true');
  expect(res.status, res.text).toBe(200);
  return res.body.data as { gateway_payment_id: string; reason: string; unapplied_paise: number }[];
}

describe('POST /channels/razorpay/webhook with a payment that does not match its link', () => {
  it('keeps a payment in another currency as unapplied (reason currency)', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    const id = await deliver({
      linkId: link.id,
      reference: due.id,
      linkAmount: 10_000,
      amount: 10_000,
      currency: 'USD',
    });
    await expectNothingRecorded(biz, due.id);
    expect(await unapplied(biz)).toMatchObject([
      { gateway_payment_id: id, reason: 'currency', unapplied_paise: 10_000 },
    ]);
  });

  it('keeps a payment on a link this service did not create as unapplied (reason unknown_link)', async () => {
    const biz = await h.newBusiness();
    const { due } = await dueWithLink(biz);
    const id = await deliver({
      linkId: 'plink_forged',
      reference: due.id,
      linkAmount: 10_000,
      amount: 10_000,
      currency: 'INR',
    });
    await expectNothingRecorded(biz, due.id);
    expect(await unapplied(biz)).toMatchObject([{ gateway_payment_id: id, reason: 'unknown_link' }]);
  });

  it("keeps a payment on another due's link as unapplied (reason unknown_link)", async () => {
    const biz = await h.newBusiness();
    const { due } = await dueWithLink(biz);
    const other = await dueWithLink(biz);
    const id = await deliver({
      linkId: other.link.id,
      reference: due.id,
      linkAmount: 10_000,
      amount: 10_000,
      currency: 'INR',
    });
    await expectNothingRecorded(biz, due.id, 20_000);
    await expectNothingRecorded(biz, other.due.id, 20_000);
    expect(await unapplied(biz)).toMatchObject([{ gateway_payment_id: id, reason: 'unknown_link' }]);
  });

  it('keeps a payment whose link amount is not the one created as unapplied (reason link_amount)', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    const id = await deliver({ linkId: link.id, reference: due.id, linkAmount: 100, amount: 100, currency: 'INR' });
    await expectNothingRecorded(biz, due.id);
    expect(await unapplied(biz)).toMatchObject([{ gateway_payment_id: id, reason: 'link_amount' }]);
  });

  it('records a payment that matches its link', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    await deliver({ linkId: link.id, reference: due.id, linkAmount: 10_000, amount: 10_000, currency: 'INR' });
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data).toMatchObject({ status: 'paid', balance_paise: 0 });
    expect(await unapplied(biz)).toEqual([]);
  });
});
