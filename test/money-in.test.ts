import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../src/payments-gateway/port.js';
import { RazorpayGateway } from '../src/payments-gateway/razorpay.js';
import { createHttpSender } from '../src/webhooks/sender.js';
import { paymentLinkCancel } from '../src/workers/payment-link-cancel.js';
import { eventsOf, newDue } from './helpers/dues.js';
import { type FakeRazorpay, razorpayEnv, startFakeRazorpay } from './helpers/fake-razorpay.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from './helpers/https-receiver.js';

/**
 * Money in through Razorpay Payment Links (PRODUCT part 11), against a fake Razorpay over real
 * HTTP: the pay page's "Pay online", the signed payment_link.paid webhook, and what follows.
 */

const NOW = '2026-11-24T06:30:00.000Z';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let fake: FakeRazorpay;
let receiver: HttpsReceiver;
let h: Harness;
let appUrl: string;

beforeAll(async () => {
  fake = await startFakeRazorpay();
  receiver = await startHttpsReceiver();
  h = await startHarness({
    now: NOW,
    env: razorpayEnv(fake),
    // The real adapter, with quick retries so that the gateway-down tests stay short.
    gateway: new RazorpayGateway({
      apiBase: fake.base,
      keyId: fake.keyId,
      keySecret: fake.keySecret,
      timeoutMs: 2000,
      retries: 2,
      retryDelayMs: 1,
    }),
    webhookSender: createHttpSender({ timeoutMs: 5000, allowPrivateNetworks: true, ca: receiver.ca }),
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  appUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.mode = 'ok';
  receiver.respond(() => 200);
});

const pathOf = (due: { pay_page_url: string }) => new URL(due.pay_page_url).pathname;
const payOnline = (due: { pay_page_url: string }) =>
  h.request('POST', `${pathOf(due)}/online`, { payload: '', headers: FORM });
const linkOf = (id: string) => {
  const link = fake.links.find((l) => l.id === id);
  if (!link) throw new Error(`no fake link ${id}`);
  return link;
};
const linkAt = (location: unknown) => {
  const link = fake.links.find((l) => l.short_url === location);
  if (!link) throw new Error(`no fake link at ${String(location)}`);
  return link;
};
const payId = () => `pay_${randomUUID().replace(/-/g, '').slice(0, 14)}`;

async function dueWithLink(biz: TestBusiness, amount = 10_000) {
  const due = await newDue(biz, {
    amount_paise: amount,
    contact_name: 'Online Buyer',
    contact_phone: '+91 98765 43210',
  });
  const res = await payOnline(due);
  expect(res.status, res.text).toBe(303);
  return { due, link: linkAt(res.headers.location) };
}

async function paymentsOf(biz: TestBusiness, id: string) {
  const res = await biz.get(`/v1/transactions/${id}/payments`);
  expect(res.status).toBe(200);
  return res.body.data as { amount_paise: number; utr: string; payment_method: string; source: string }[];
}

async function unapplied(biz: TestBusiness) {
  const res = await biz.get('/v1/payments?unapplied=true');
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('the pay page with a payments gateway', () => {
  it('offers "Pay online" and lets its form lead to the gateway (CSP form-action)', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    const page = await h.request('GET', pathOf(due));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${pathOf(due)}/online">`);
    expect(page.text).toContain('Pay online');
    expect(String(page.headers['content-security-policy'])).toContain(`form-action 'self' https://rzp.io ${fake.base}`);
  });

  it('POST /pay/:token/online creates a link for the balance and answers 303 to its short_url', async () => {
    const biz = await h.newBusiness({ name: 'Link Traders' });
    const due = await newDue(biz, {
      amount_paise: 12_345,
      contact_name: 'Link Buyer',
      contact_phone: '+91 98765 43210',
      invoice_number: 'INV-77',
    });
    const before = fake.calls.length;
    const res = await payOnline(due);
    expect(res.status).toBe(303);
    const link = linkAt(res.headers.location);
    expect(res.headers.location).toBe(`${fake.base}/i/${link.id}`);
    const call = fake.calls[before];
    expect(call).toMatchObject({
      method: 'POST',
      path: '/v1/payment_links',
      authorization: `Basic ${Buffer.from(`${fake.keyId}:${fake.keySecret}`).toString('base64')}`,
    });
    expect(call?.body).toMatchObject({
      amount: 12_345,
      currency: 'INR',
      reference_id: due.id,
      description: 'Link Traders: invoice INV-77',
      customer: { contact: '+919876543210', name: 'Link Buyer' },
      callback_url: due.pay_page_url,
      callback_method: 'get',
    });
  });

  it('reuses the open link while the balance is the same, and replaces it when the balance changes', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    const created = fake.links.length;
    const again = await payOnline(due);
    expect(again.headers.location).toBe(link.short_url);
    expect(fake.links.length).toBe(created);

    expect((await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 4000 })).status).toBe(201);
    const replaced = await payOnline(due);
    expect(replaced.status).toBe(303);
    const next = linkAt(replaced.headers.location);
    expect(next.id).not.toBe(link.id);
    expect(next.amount).toBe(6000);
    expect(linkOf(link.id).status).toBe('cancelled');
    expect(fake.calls.some((c) => c.path === `/v1/payment_links/${link.id}/cancel`)).toBe(true);
  });

  it('shows the pay page again with a clear message when the gateway is down, after retrying', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    fake.mode = 503;
    const before = fake.calls.length;
    const res = await payOnline(due);
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('Online payment is not available right now');
    expect(res.text).toContain('id="online-error"');
    expect(res.text).not.toContain(fake.keySecret);
    expect(fake.calls.length - before).toBe(3);
    fake.mode = 'ok';
    expect((await payOnline(due)).status).toBe(303);
  });

  it('does not retry a refusal (4xx) and shows the same message', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    fake.mode = 400;
    const before = fake.calls.length;
    const res = await payOnline(due);
    expect(res.status).toBe(502);
    expect(res.text).toContain('Online payment is not available right now');
    expect(fake.calls.length - before).toBe(1);
  });

  it('answers 404 for an unknown token, 410 for a deleted due and 303 to the page for a paid one', async () => {
    const biz = await h.newBusiness();
    expect(
      (await h.request('POST', '/pay/AAAAAAAAAAAAAAAAAAAAAAAA/online', { payload: '', headers: FORM })).status,
    ).toBe(404);
    const deleted = await newDue(biz);
    expect((await biz.delete(`/v1/transactions/${deleted.id}`)).status).toBe(200);
    expect((await payOnline(deleted)).status).toBe(410);
    const paid = await newDue(biz);
    expect((await biz.post(`/v1/transactions/${paid.id}/mark-paid`)).status).toBe(200);
    const res = await payOnline(paid);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(pathOf(paid));
  });
});

describe('POST /channels/razorpay/webhook (payment_link.paid)', () => {
  it('pays the due and delivers payment.received and transaction.paid to an HTTPS receiver', async () => {
    const biz = await h.newBusiness();
    const hook = await biz.post('/v1/webhooks', {
      url: receiver.url,
      events: ['payment.received', 'transaction.paid'],
    });
    expect(hook.status).toBe(201);
    const { due, link } = await dueWithLink(biz);
    const paymentId = payId();

    const res = await fake.deliver(appUrl, fake.paidWebhook(link, { id: paymentId, method: 'upi' }));
    expect(res).toEqual({ status: 200, text: JSON.stringify({ received: true }) });

    const read = await biz.get(`/v1/transactions/${due.id}`);
    expect(read.body.data).toMatchObject({
      status: 'paid',
      balance_paise: 0,
      amount_paid_paise: 10_000,
      utr: paymentId,
      payment_method: 'upi',
    });
    expect(await paymentsOf(biz, due.id)).toMatchObject([
      { amount_paise: 10_000, utr: paymentId, payment_method: 'upi', source: 'gateway' },
    ]);
    // Paid at the gateway, and so in our books: not stale, nothing for the cancel job to do.
    expect(linkOf(link.id).status).toBe('paid');
    expect(
      (
        await h.store.db
          .selectFrom('payment_links')
          .select('status')
          .where('gateway_link_id', '=', link.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('paid');

    await h.services.webhookDispatcher.fanOut();
    await h.services.webhookDispatcher.deliverDue();
    const mine = (await receiver.waitFor(2))
      .map((r) => JSON.parse(r.body))
      .filter((b) => (b.data.transactionId ?? b.data.id) === due.id);
    const byEvent = Object.fromEntries(mine.map((b) => [b.event, b.data]));
    expect(byEvent['payment.received']).toEqual({
      transactionId: due.id,
      amountPaise: 10_000,
      paidAt: NOW,
      paymentRef: paymentId,
      paymentMethod: 'upi',
    });
    expect(byEvent['transaction.paid']).toMatchObject({ id: due.id, paymentRef: paymentId, amountPaise: 10_000 });

    // The page no longer offers to pay.
    const page = await h.request('GET', pathOf(due));
    expect(page.text).not.toContain('Pay online');
  });

  it('is audited as done by the system: the receipt and the due it paid', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    const res = await fake.deliver(appUrl, fake.paidWebhook(link, { id: payId(), method: 'upi' }));
    expect(res.status).toBe(200);
    const log = await biz.get('/v1/audit-log');
    expect(log.status, log.text).toBe(200);
    const money = (
      log.body.data as { action: string; entity: string; entity_id: string; actor: object; changes: object }[]
    ).filter((e) => e.entity === 'transaction' || e.entity === 'receipt');
    expect(money.map((e) => [e.action, e.actor])).toEqual([
      ['transaction.paid', { type: 'system', id: null, name: null }],
      ['receipt.recorded', { type: 'system', id: null, name: null }],
      ['transaction.created', { type: 'api_key', id: expect.any(String), name: biz.apiKey.slice(0, 12) }],
    ]);
    expect(money[0]?.entity_id).toBe(due.id);
    expect(money[1]?.changes).toMatchObject({ source: [null, 'gateway'], amount_paise: [null, 10_000] });
  });

  it('records a payment id once, however often (and however concurrently) it arrives', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    const webhook = fake.paidWebhook(link, { id: payId(), amount: 4000 });
    const answers = await Promise.all([1, 2, 3, 4].map(() => fake.deliver(appUrl, webhook)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect((await fake.deliver(appUrl, webhook)).status).toBe(200);
    expect(await paymentsOf(biz, due.id)).toHaveLength(1);
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(1);
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.balance_paise).toBe(6000);
  });

  it('answers 401 and changes nothing for a missing, wrong or stale signature', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    const good = fake.paidWebhook(link, { id: payId() });
    const tampered = good.body.replace('"amount":10000', '"amount":10001');
    for (const bad of [
      { body: good.body },
      { body: good.body, signature: '' },
      { body: good.body, signature: 'a'.repeat(64) },
      { body: good.body, signature: good.signature.slice(0, 10) },
      { body: tampered, signature: good.signature },
    ]) {
      const res = await fake.deliver(appUrl, bad);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text).error.code).toBe('unauthorized');
    }
    expect(await paymentsOf(biz, due.id)).toEqual([]);
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toEqual([]);
  });

  it('acknowledges an unknown reference and other events, recording nothing', async () => {
    const biz = await h.newBusiness();
    const { due } = await dueWithLink(biz);
    for (const reference of [randomUUID(), 'not-a-due-id']) {
      const res = await fake.deliver(
        appUrl,
        fake.paidWebhook({ id: 'plink_unknown', reference_id: reference, amount: 5000 }, { id: payId() }),
      );
      expect(res.status).toBe(200);
    }
    const other = JSON.stringify({ event: 'payment.captured', payload: {} });
    const { createHmac } = await import('node:crypto');
    const signed = createHmac('sha256', fake.webhookSecret).update(other).digest('hex');
    expect((await fake.deliver(appUrl, { body: other, signature: signed })).status).toBe(200);
    expect(await paymentsOf(biz, due.id)).toEqual([]);
    expect((await unapplied(biz)).data).toEqual([]);
  });

  it('records a part payment: transaction.updated and payment.received, the due stays open', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    const paymentId = payId();
    expect(
      (await fake.deliver(appUrl, fake.paidWebhook(link, { id: paymentId, amount: 2500, method: 'netbanking' })))
        .status,
    ).toBe(200);
    const read = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    expect(read).toMatchObject({ status: 'pending', amount_paid_paise: 2500, balance_paise: 7500 });
    expect(await paymentsOf(biz, due.id)).toMatchObject([
      { amount_paise: 2500, utr: paymentId, payment_method: 'bank_transfer', source: 'gateway' },
    ]);
    const types = (await eventsOf(h, biz.business.id)).map((e) => e.type);
    expect(types.filter((t) => t !== 'transaction.created' && t !== 'contact.created')).toEqual([
      'transaction.updated',
      'payment.received',
    ]);
  });

  it('keeps money for a settled or deleted due, or above the balance, as unapplied payments', async () => {
    const biz = await h.newBusiness();
    // Settled by the business before the buyer's online payment arrived (a late webhook).
    const { due: settled, link } = await dueWithLink(biz);
    expect((await biz.post(`/v1/transactions/${settled.id}/mark-paid`, { utr: 'CASH-1' })).status).toBe(200);
    const late = payId();
    expect((await fake.deliver(appUrl, fake.paidWebhook(link, { id: late, method: 'card' }))).status).toBe(200);
    expect(await paymentsOf(biz, settled.id)).toHaveLength(1);

    // Deleted by the business (no payments yet), then paid through a link it had.
    const deleted = await dueWithLink(biz, 3000);
    expect((await biz.delete(`/v1/transactions/${deleted.due.id}`)).status).toBe(200);
    const gone = payId();
    expect((await fake.deliver(appUrl, fake.paidWebhook(deleted.link, { id: gone, method: 'wallet' }))).status).toBe(
      200,
    );

    // More than the balance: the balance is applied, the rest kept.
    const over = await dueWithLink(biz, 5000);
    const extra = payId();
    expect((await fake.deliver(appUrl, fake.paidWebhook(over.link, { id: extra, amount: 5600 }))).status).toBe(200);
    expect((await biz.get(`/v1/transactions/${over.due.id}`)).body.data.status).toBe('paid');

    const list = await unapplied(biz);
    expect(list).toMatchObject({ total: 3, limit: 50, offset: 0, hasMore: false });
    const byId = Object.fromEntries(list.data.map((p: { gateway_payment_id: string }) => [p.gateway_payment_id, p]));
    expect(byId[late]).toMatchObject({
      transaction_id: settled.id,
      received_paise: 10_000,
      unapplied_paise: 10_000,
      reason: 'settled',
      payment_id: null,
      payment_method: 'card',
      created_at: NOW,
    });
    expect(byId[gone]).toMatchObject({
      transaction_id: deleted.due.id,
      unapplied_paise: 3000,
      reason: 'deleted',
      payment_method: 'other',
    });
    expect(byId[extra]).toMatchObject({
      transaction_id: over.due.id,
      received_paise: 5600,
      unapplied_paise: 600,
      reason: 'over_balance',
    });
    expect(byId[extra].payment_id).toEqual(expect.any(String));

    const page = await biz.get('/v1/payments?unapplied=true&limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1, hasMore: true });
    expect(page.body.data).toHaveLength(1);

    // Another business sees none of it.
    const other = await h.newBusiness();
    expect((await unapplied(other)).total).toBe(0);
  });
});

describe('the payment-link-cancel job', () => {
  const job = () => paymentLinkCancel({ moneyIn: h.services.moneyIn });
  const signal = new AbortController().signal;
  const storedStatus = async (linkId: string) =>
    (
      await h.store.db
        .selectFrom('payment_links')
        .select('status')
        .where('gateway_link_id', '=', linkId)
        .executeTakeFirstOrThrow()
    ).status;
  const cancelCalls = (linkId: string) =>
    fake.calls.filter((c) => c.path === `/v1/payment_links/${linkId}/cancel`).length;
  /** Runs the job until it finds nothing (other tests of this file leave stale links too). */
  async function drain() {
    let handled = 0;
    for (let run = 0; run < 50; run++) {
      const n = await job().runOnce(signal);
      if (n === 0) return handled;
      handled += n;
    }
    throw new Error('the payment-link-cancel job still had work after 50 runs');
  }

  it("cancels the open links of a due settled by other means or deleted, and leaves an open due's link", async () => {
    const biz = await h.newBusiness();
    const settled = await dueWithLink(biz);
    const deleted = await dueWithLink(biz, 3000);
    const open = await dueWithLink(biz, 4000);
    expect((await biz.post(`/v1/transactions/${settled.due.id}/mark-paid`, { utr: 'CASH-9' })).status).toBe(200);
    expect((await biz.delete(`/v1/transactions/${deleted.due.id}`)).status).toBe(200);
    // Marked stale by the settling transaction itself, still open at the gateway until the job runs.
    expect(await storedStatus(settled.link.id)).toBe('stale');
    expect(await storedStatus(deleted.link.id)).toBe('stale');
    expect(linkOf(settled.link.id).status).toBe('created');

    expect(await drain()).toBeGreaterThanOrEqual(2);
    expect(linkOf(settled.link.id).status).toBe('cancelled');
    expect(linkOf(deleted.link.id).status).toBe('cancelled');
    expect(await storedStatus(settled.link.id)).toBe('cancelled');
    expect(await storedStatus(deleted.link.id)).toBe('cancelled');
    expect(linkOf(open.link.id).status).toBe('created');
    expect(await storedStatus(open.link.id)).toBe('created');
    expect(cancelCalls(open.link.id)).toBe(0);

    // Done once: a later run asks the gateway nothing more.
    expect(await job().runOnce(signal)).toBe(0);
    expect(cancelCalls(settled.link.id)).toBe(1);
  });

  it('a part payment leaves the link stale only once the due is paid in full', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz, 10_000);
    expect((await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 4000 })).status).toBe(201);
    expect(await storedStatus(link.id)).toBe('created');
    expect((await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 6000 })).status).toBe(201);
    expect(await storedStatus(link.id)).toBe('stale');
    await drain();
    expect(linkOf(link.id).status).toBe('cancelled');
  });

  it('marks a link the gateway refuses to cancel (paid there meanwhile) refused, and does not ask again', async () => {
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`, { utr: 'CASH-10' })).status).toBe(200);
    linkOf(link.id).status = 'paid'; // the buyer paid it at the gateway; its webhook is still on the way
    await drain();
    expect(await storedStatus(link.id)).toBe('refused');
    expect(cancelCalls(link.id)).toBe(1);
    expect(await job().runOnce(signal)).toBe(0);
    expect(cancelCalls(link.id)).toBe(1);
    // The late webhook still records the money, as unapplied.
    const late = payId();
    expect((await fake.deliver(appUrl, fake.paidWebhook(link, { id: late }))).status).toBe(200);
    expect((await unapplied(biz)).data).toMatchObject([{ gateway_payment_id: late, reason: 'settled' }]);
  });

  it('fails the run while the gateway is down (the worker backs off) and cancels once it is back', async () => {
    await drain();
    const biz = await h.newBusiness();
    const { due, link } = await dueWithLink(biz);
    expect((await biz.delete(`/v1/transactions/${due.id}`)).status).toBe(200);
    fake.mode = 503;
    await expect(job().runOnce(signal)).rejects.toThrow(GatewayError);
    expect(await storedStatus(link.id)).toBe('stale');
    fake.mode = 'ok';
    expect(await job().runOnce(signal)).toBe(1);
    expect(linkOf(link.id).status).toBe('cancelled');
  });

  it("does not touch another business by mistake: only settled dues' links are stale", async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const mine = await dueWithLink(a);
    const theirs = await dueWithLink(b);
    // b cannot settle a's due (404) and so cannot make its link stale.
    expect((await b.post(`/v1/transactions/${mine.due.id}/mark-paid`, { utr: 'X' })).status).toBe(404);
    expect((await b.delete(`/v1/transactions/${mine.due.id}`)).status).toBe(404);
    await drain();
    expect(linkOf(mine.link.id).status).toBe('created');
    expect(linkOf(theirs.link.id).status).toBe('created');
  });
});

describe('GET /v1/payments', () => {
  it('answers 400 naming unapplied unless unapplied=true', async () => {
    const biz = await h.newBusiness();
    for (const query of ['', '?unapplied=false', '?unapplied=maybe']) {
      const res = await biz.get(`/v1/payments${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'unapplied' });
    }
    expect((await biz.get('/v1/payments?unapplied=true&limit=0')).status).toBe(400);
    expect((await biz.get('/v1/payments?unapplied=true&colour=red')).status).toBe(400);
  });

  it('needs an API key', async () => {
    expect((await h.request('GET', '/v1/payments?unapplied=true')).status).toBe(401);
  });
});

describe('the Razorpay adapter', () => {
  const input = {
    referenceId: randomUUID(),
    notes: {},
    amountPaise: 1000,
    currency: 'INR',
    description: 'x',
    customerPhone: null,
    customerName: 'Someone',
    callbackUrl: 'https://pay.example.test/pay/t',
  };
  const adapter = (apiBase: string) =>
    new RazorpayGateway({
      apiBase,
      keyId: fake.keyId,
      keySecret: fake.keySecret,
      timeoutMs: 300,
      retries: 1,
      retryDelayMs: 1,
    });

  it('gives up on a gateway that does not answer after its timeout, retrying once', async () => {
    fake.mode = 'hang';
    const before = fake.calls.length;
    const failure = await adapter(fake.base)
      .createLink(input)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).message).toBe('the payment gateway did not answer within 300 ms');
    expect(fake.calls.length - before).toBe(2);
  });

  it('reports an unreachable gateway without its credentials', async () => {
    const failure = await adapter('http://127.0.0.1:1')
      .createLink(input)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).message).toBe('the payment gateway could not be reached');
    expect(JSON.stringify({ ...(failure as GatewayError), message: (failure as GatewayError).message })).not.toContain(
      fake.keySecret,
    );
  });

  it("does not retry a refusal and keeps the gateway's reason for the logs", async () => {
    // A cancel of an unknown link is refused by the fake (400): no retry, a GatewayError.
    const before = fake.calls.length;
    const failure = await adapter(fake.base)
      .cancelLink('plink_nope')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).detail).toContain('does not exist');
    expect(fake.calls.length - before).toBe(1);
  });
});

describe('GET /openapi.json', () => {
  it('documents the claims, unapplied payments and the Razorpay webhook', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/transactions/{id}/claims',
        '/v1/transactions/{id}/claims/{claimId}/confirm',
        '/v1/transactions/{id}/claims/{claimId}/reject',
        '/v1/payments',
        '/channels/razorpay/webhook',
      ]),
    );
  });
});
