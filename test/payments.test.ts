import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contactOf, eventsOf, newDue, remindersOf, summaryOf } from './helpers/dues.js';
import { type Harness, startHarness } from './helpers/harness.js';

// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());
beforeEach(() => h.clock.set(NOW));

describe('POST /v1/transactions/{id}/payments', () => {
  it('records a part payment: balance, totals, contact outstanding, transaction.updated', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 150_000 });
    h.clock.advance(1000);
    const res = await biz.post(`/v1/transactions/${d.id}/payments`, {
      amount_paise: 50_000,
      utr: 'UTR-1',
      payment_method: 'upi',
    });
    expect(res.status).toBe(201);
    const at = h.clock.now().toISOString();
    expect(res.body.data.payment).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      transaction_id: d.id,
      amount_paise: 50_000,
      utr: 'UTR-1',
      payment_method: 'upi',
      source: 'api',
      created_at: at,
    });
    expect(res.body.data.transaction).toMatchObject({
      id: d.id,
      status: 'pending',
      amount_paise: 150_000,
      amount_paid_paise: 50_000,
      balance_paise: 100_000,
      paid_at: null,
      utr: null,
      updated_at: at,
    });
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data).toMatchObject(res.body.data.transaction);
    const summary = await summaryOf(biz);
    expect(summary).toMatchObject({
      pending: { count: 1, paise: 100_000 },
      paid: { count: 0, paise: 0 },
      paid_this_month_paise: 50_000,
      total_outstanding_paise: 100_000,
    });
    expect((await contactOf(biz, d.contact_id)).outstanding_paise).toBe(100_000);
    expect((await biz.get(`/legacy/v1/transactions/${d.id}`)).body).toMatchObject({
      amountPaise: 150_000,
      status: 'pending',
    });
    expect((await biz.get('/legacy/v1/summary')).body.totalOutstandingPaise).toBe(100_000);
    const updated = await eventsOf(h, biz.business.id, 'transaction.updated');
    expect(updated.map((e) => e.data)).toEqual([
      expect.objectContaining({ id: d.id, amountPaise: 150_000, updatedAt: at }),
    ]);
    expect(await eventsOf(h, biz.business.id, 'transaction.paid')).toHaveLength(0);
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(0);
  });

  it('settles the due with the payment of the rest: paid with its utr and method, transaction.paid, reminder cancelled', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 150_000, due_date: '2026-11-10' });
    await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 50_000 });
    h.clock.advance(2000);
    const rest = await biz.post(`/v1/transactions/${d.id}/payments`, {
      amount_paise: 100_000,
      utr: 'UTR-REST',
      payment_method: 'cash',
    });
    expect(rest.status).toBe(201);
    const at = h.clock.now().toISOString();
    expect(rest.body.data.transaction).toMatchObject({
      status: 'paid',
      paid_at: at,
      utr: 'UTR-REST',
      payment_method: 'cash',
      amount_paid_paise: 150_000,
      balance_paise: 0,
    });
    const summary = await summaryOf(biz);
    expect(summary).toMatchObject({
      overdue: { count: 0, paise: 0 },
      paid: { count: 1, paise: 150_000 },
      paid_this_month_paise: 150_000,
      total_outstanding_paise: 0,
    });
    expect(await eventsOf(h, biz.business.id, 'transaction.paid')).toEqual([
      {
        type: 'transaction.paid',
        data: {
          id: d.id,
          contactName: 'Lifecycle Buyer',
          amountPaise: 150_000,
          paidAt: at,
          paymentRef: 'UTR-REST',
          paymentMethod: 'cash',
        },
      },
    ]);
    const list = await biz.get(`/v1/transactions/${d.id}/payments`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { amount_paise: number }) => p.amount_paise)).toEqual([50_000, 100_000]);
    expect((await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 1 })).status).toBe(409);
  });

  it('cancels the scheduled reminder once the due is settled', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 10_000 });
    const reminders = await remindersOf(h, d.id);
    expect(reminders).toHaveLength(4);
    for (const r of reminders) expect(r).toMatchObject({ status: 'cancelled', reason: 'paid' });
  });

  it('answers 400 naming amount_paise for more than the balance, and changes nothing', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 6000 });
    const res = await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 4001 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'amount_paise' });
    expect(res.body.error.message).toContain('amount_paise');
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data.amount_paid_paise).toBe(6000);
    expect((await biz.get(`/v1/transactions/${d.id}/payments`)).body.data).toHaveLength(1);
  });

  it.each([
    [{}, 'amount_paise'],
    [{ amount_paise: 0 }, 'amount_paise'],
    [{ amount_paise: 1.5 }, 'amount_paise'],
    [{ amount_paise: 100, payment_method: 'cheque' }, 'payment_method'],
    [{ amount_paise: 100, utr: 'x'.repeat(61) }, 'utr'],
    [{ amount_paise: 100, source: 'gateway' }, 'source'],
  ])('answers 400 for %j naming the field', async (body, field) => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const res = await biz.post(`/v1/transactions/${d.id}/payments`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(field);
    expect((await biz.get(`/v1/transactions/${d.id}/payments`)).body.data).toEqual([]);
  });

  it('answers 404 for a deleted due, unknown ids or another business', async () => {
    const owner = await h.newBusiness();
    const other = await h.newBusiness();
    const deleted = await newDue(owner);
    await owner.delete(`/v1/transactions/${deleted.id}`);
    expect((await owner.post(`/v1/transactions/${deleted.id}/payments`, { amount_paise: 1 })).status).toBe(404);
    const d = await newDue(owner);
    expect((await other.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 1 })).status).toBe(404);
    expect((await other.get(`/v1/transactions/${d.id}/payments`)).status).toBe(404);
    expect((await owner.post(`/v1/transactions/${MISSING}/payments`, { amount_paise: 1 })).status).toBe(404);
    expect((await owner.get(`/v1/transactions/${deleted.id}/payments`)).status).toBe(404);
    expect((await owner.get(`/v1/transactions/${d.id}`)).body.data.amount_paid_paise).toBe(0);
  });

  it('replays a payment sent again with the same Idempotency-Key, and refuses a different body (422)', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const headers = { 'idempotency-key': 'pay-once-1' };
    const first = await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 2500 }, { headers });
    const again = await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 2500 }, { headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const different = await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 2600 }, { headers });
    expect(different.status).toBe(422);
    expect((await biz.get(`/v1/transactions/${d.id}/payments`)).body.data).toHaveLength(1);
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data.amount_paid_paise).toBe(2500);
  });

  it('never overpays: of 20 parallel part payments exactly those that fit succeed, the rest get 400', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 10_000 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 700, utr: `PAR-${i}` }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(14);
    expect(statuses.filter((s) => s === 400)).toHaveLength(6);
    const after = (await biz.get(`/v1/transactions/${d.id}`)).body.data;
    expect(after).toMatchObject({ amount_paid_paise: 9800, balance_paise: 200, status: 'pending' });
    expect((await summaryOf(biz)).pending).toEqual({ count: 1, paise: 200 });
    expect((await summaryOf(biz)).paid_this_month_paise).toBe(9800);
    expect((await biz.get(`/v1/transactions/${d.id}/payments`)).body.data).toHaveLength(14);
  });

  it('keeps totals right when a PATCH of the amount races payments', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 10_000 });
    await Promise.all([
      biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 1000 }),
      biz.patch(`/v1/transactions/${d.id}`, { amount_paise: 20_000 }),
      biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 1000 }),
    ]);
    const after = (await biz.get(`/v1/transactions/${d.id}`)).body.data;
    expect(after).toMatchObject({ amount_paise: 20_000, amount_paid_paise: 2000, balance_paise: 18_000 });
    expect((await summaryOf(biz)).pending).toEqual({ count: 1, paise: 18_000 });
    expect((await contactOf(biz, d.contact_id)).outstanding_paise).toBe(18_000);
  });
});

describe('POST /v1/transactions/{id}/mark-paid after part payments', () => {
  it('records one payment of the balance', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 9000 });
    await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 4000 });
    const res = await biz.post(`/v1/transactions/${d.id}/mark-paid`, { utr: 'UTR-MP' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'paid', amount_paid_paise: 9000, balance_paise: 0, utr: 'UTR-MP' });
    const payments = (await biz.get(`/v1/transactions/${d.id}/payments`)).body.data;
    expect(payments.map((p: { amount_paise: number; source: string }) => [p.amount_paise, p.source])).toEqual([
      [4000, 'api'],
      [5000, 'api'],
    ]);
    const paid = await eventsOf(h, biz.business.id, 'transaction.paid');
    expect(paid.map((e) => e.data.amountPaise)).toEqual([9000]);
    expect((await summaryOf(biz)).paid).toEqual({ count: 1, paise: 9000 });
  });
});

describe('GET /pay/{token} with part payments', () => {
  it('asks for the balance, in the amount and the UPI link, and lists the payments made', async () => {
    const biz = await h.newBusiness();
    await h.services.businesses.update(biz.business.id, { upiId: 'shop@upi' });
    const d = await newDue(biz, { amount_paise: 150_000 });
    await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 50_000 });
    const page = await h.request('GET', new URL(d.pay_page_url).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/id="amount">₹1,000\.00</);
    expect(page.text).toContain('am=1000.00');
    expect(page.text).toContain('id="payments"');
    expect(page.text).toContain('₹500.00');
  });
});
