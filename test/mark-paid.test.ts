import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

async function newDue(biz: TestBusiness, dueDate = '2026-12-01', amount = 10_000) {
  const res = await biz.post('/v1/transactions', { amount_paise: amount, due_date: dueDate, contact_name: 'Payer' });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; contact_id: string };
}

function eventsOf(businessId: string, type: string) {
  return h.store.db
    .selectFrom('events')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('type', '=', type)
    .execute();
}

describe('POST /v1/transactions/{id}/mark-paid', () => {
  it('marks a pending due paid with utr and method, and emits transaction.paid', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    h.clock.advance(3000);
    const res = await biz.post(`/v1/transactions/${d.id}/mark-paid`, { utr: 'UTR123456789', payment_method: 'upi' });
    expect(res.status).toBe(200);
    const paidAt = new Date(Date.parse(NOW) + 3000).toISOString();
    expect(res.body.data).toMatchObject({
      id: d.id,
      status: 'paid',
      paid_at: paidAt,
      utr: 'UTR123456789',
      payment_method: 'upi',
      updated_at: paidAt,
    });
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data).toMatchObject(res.body.data);
    const events = await eventsOf(biz.business.id, 'transaction.paid');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.payload ?? '')).toEqual({
      id: d.id,
      contactName: 'Payer',
      amountPaise: 10_000,
      paidAt,
      paymentRef: 'UTR123456789',
      paymentMethod: 'upi',
    });
    h.clock.set(NOW);
  });

  it('defaults payment_method to api and accepts an absent body', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const res = await h.request('POST', `/v1/transactions/${d.id}/mark-paid`, { headers: { 'x-api-key': biz.apiKey } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'paid', payment_method: 'api', utr: null });
    const events = await eventsOf(biz.business.id, 'transaction.paid');
    expect(JSON.parse(events[0]?.payload ?? '').paymentRef).toBeNull();
  });

  it('accepts an empty JSON body with a JSON content type', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const res = await biz.post(`/v1/transactions/${d.id}/mark-paid`, undefined, {
      payload: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
  });

  it('marks an overdue due paid and moves the totals from overdue to paid', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, '2026-11-01', 5000);
    expect((await biz.get('/v1/summary')).body.data.overdue).toEqual({ count: 1, paise: 5000 });
    const res = await biz.post(`/v1/transactions/${d.id}/mark-paid`, { payment_method: 'cash' });
    expect(res.body.data.status).toBe('paid');
    const summary = (await biz.get('/v1/summary')).body.data;
    expect(summary.overdue).toEqual({ count: 0, paise: 0 });
    expect(summary.paid).toEqual({ count: 1, paise: 5000 });
    expect(summary.paid_this_month_paise).toBe(5000);
  });

  it('answers 409 for a paid due and changes nothing', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const first = await biz.post(`/v1/transactions/${d.id}/mark-paid`, { utr: 'FIRST' });
    const again = await biz.post(`/v1/transactions/${d.id}/mark-paid`, { utr: 'SECOND' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data).toMatchObject(first.body.data);
    expect(await eventsOf(biz.business.id, 'transaction.paid')).toHaveLength(1);
  });

  it('answers 400 for bad input and leaves the due unpaid', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const cases: [unknown, string][] = [
      [{ payment_method: 'cheque' }, 'payment_method'],
      [{ payment_method: 'api' }, 'payment_method'],
      [{ utr: 'u'.repeat(61) }, 'utr'],
      [{ utr: '' }, 'utr'],
      [{ utr: 12345 }, 'utr'],
      [{ paid_at: NOW }, 'paid_at'],
    ];
    for (const [body, field] of cases) {
      const res = await biz.post(`/v1/transactions/${d.id}/mark-paid`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field).toBe(field);
    }
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data.status).toBe('pending');
    const ok = await biz.post(`/v1/transactions/${d.id}/mark-paid`, {
      utr: 'u'.repeat(60),
      payment_method: 'bank_transfer',
    });
    expect(ok.status).toBe(200);
  });

  it('answers 404 for an unknown due and for another business due', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const d = await newDue(a);
    expect((await a.post(`/v1/transactions/${MISSING}/mark-paid`, {})).status).toBe(404);
    expect((await b.post(`/v1/transactions/${d.id}/mark-paid`, {})).status).toBe(404);
    expect((await a.get(`/v1/transactions/${d.id}`)).body.data.status).toBe('pending');
  });

  it('under 20 concurrent calls: exactly one 200, the rest 409, one event, totals counted once', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, '2026-12-01', 7777);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => biz.post(`/v1/transactions/${d.id}/mark-paid`, { utr: `R${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(await eventsOf(biz.business.id, 'transaction.paid')).toHaveLength(1);
    const summary = (await biz.get('/v1/summary')).body.data;
    expect(summary.paid).toEqual({ count: 1, paise: 7777 });
    expect(summary.pending).toEqual({ count: 0, paise: 0 });
  });

  it('updates the contact balance', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, '2026-12-01', 4000);
    await biz.post('/v1/transactions', { amount_paise: 1000, due_date: '2026-12-02', contact_id: d.contact_id });
    expect((await biz.get(`/v1/contacts/${d.contact_id}`)).body.data.outstanding_paise).toBe(5000);
    await biz.post(`/v1/transactions/${d.id}/mark-paid`, {});
    const contact = (await biz.get(`/v1/contacts/${d.contact_id}`)).body.data;
    expect(contact).toMatchObject({ outstanding_paise: 1000, pending_count: 1, total_transactions: 2 });
  });
});
