import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * The earlier response shape (SPEC part 9, PRODUCT part 7): every read endpoint field by field,
 * its filters and its forgiving query handling, over the same data as /v1.
 */

// 11:30 in Asia/Kolkata (the default business time zone): "today" is 2030-03-10 for the business.
const NOW = '2030-03-10T06:00:00.000Z';
const TRANSACTION_FIELDS = [
  'amountPaise',
  'claimCount',
  'contactName',
  'contactPhone',
  'createdAt',
  'dueDate',
  'id',
  'paidAt',
  'paymentRef',
  'reminderCount',
  'status',
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

async function due(
  biz: TestBusiness,
  body: { amount_paise: number; due_date: string; contact_name?: string; contact_id?: string; contact_phone?: string },
) {
  const res = await biz.post('/v1/transactions', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; contact_id: string };
}

describe('GET /legacy/v1/summary', () => {
  it('answers the flat camelCase totals, with past-due pending dues counted as overdue', async () => {
    const biz = await h.newBusiness();
    await due(biz, { amount_paise: 10_000, due_date: '2030-03-20', contact_name: 'Ravi Kumar' });
    await due(biz, { amount_paise: 20_000, due_date: '2030-03-05', contact_name: 'Sunita Rao' });
    const paid = await due(biz, { amount_paise: 5_000, due_date: '2030-03-12', contact_name: 'Ravi Kumar' });
    expect((await biz.post(`/v1/transactions/${paid.id}/mark-paid`, {})).status).toBe(200);
    expect((await biz.post('/v1/contacts', { name: 'Asha Traders' })).status).toBe(201);

    const res = await biz.get('/legacy/v1/summary');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      overdue: { count: 1, paise: 20_000 },
      pending: { count: 1, paise: 10_000 },
      paid: { count: 1, paise: 5_000 },
      totalOutstandingPaise: 30_000,
      contactCount: 3,
      currencyCode: 'INR',
    });
    const v1 = (await biz.get('/v1/summary')).body.data;
    expect(res.body.totalOutstandingPaise).toBe(v1.total_outstanding_paise);
    expect(res.body.contactCount).toBe(v1.contact_count);
  });
});

describe('GET /legacy/v1/transactions/:id', () => {
  it('answers the due flat, with the earlier field names and formats', async () => {
    const biz = await h.newBusiness();
    const createdAt = h.clock.now().toISOString();
    const created = await due(biz, {
      amount_paise: 12_345,
      due_date: '2030-03-20',
      contact_name: 'Ravi Kumar',
      contact_phone: '98765 43210',
    });
    const res = await biz.get(`/legacy/v1/transactions/${created.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      id: created.id,
      contactName: 'Ravi Kumar',
      contactPhone: '+919876543210',
      amountPaise: 12_345,
      dueDate: '2030-03-20',
      status: 'pending',
      paidAt: null,
      createdAt,
      paymentRef: null,
      reminderCount: 0,
      claimCount: 0,
    });
  });

  it('shows a paid due with paidAt and its utr as paymentRef', async () => {
    const biz = await h.newBusiness();
    const created = await due(biz, { amount_paise: 500, due_date: '2030-03-01', contact_name: 'Meena Stores' });
    const paidAt = new Date(h.clock.now().getTime() + 90_000).toISOString();
    h.clock.advance(90_000);
    const paid = await biz.post(`/v1/transactions/${created.id}/mark-paid`, {
      utr: 'UTR-778899',
      payment_method: 'upi',
    });
    expect(paid.status, paid.text).toBe(200);
    const res = await biz.get(`/legacy/v1/transactions/${created.id}`);
    expect(res.body).toMatchObject({
      status: 'paid',
      paidAt: paid.body.data.paid_at,
      paymentRef: 'UTR-778899',
      contactPhone: null,
      dueDate: '2030-03-01',
    });
    expect(res.body.paidAt).toBe(paidAt);
    expect(Object.keys(res.body).sort()).toEqual(TRANSACTION_FIELDS);
  });

  it('reads reminderCount and claimCount from the due', async () => {
    const biz = await h.newBusiness();
    const created = await due(biz, { amount_paise: 700, due_date: '2030-04-01', contact_name: 'Gopal Das' });
    // Reminders and pay-page claims are written by other parts of the service; set them directly.
    await h.store.db
      .updateTable('transactions')
      .set({ reminder_count: 2, claim_count: 3 })
      .where('id', '=', created.id)
      .execute();
    const res = await biz.get(`/legacy/v1/transactions/${created.id}`);
    expect(res.body).toMatchObject({ reminderCount: 2, claimCount: 3 });
  });
});

describe('GET /legacy/v1/transactions', () => {
  async function seeded() {
    const biz = await h.newBusiness();
    const ravi = await due(biz, {
      amount_paise: 100,
      due_date: '2030-03-01',
      contact_name: 'Ravi Kumar',
      contact_phone: '9876543210',
    });
    const rows = [ravi];
    for (const [amount, date, name] of [
      [200, '2030-03-05', 'Sunita Rao'],
      [300, '2030-03-10', 'Ravi Kumar'],
      [400, '2030-03-15', 'Sunita Rao'],
      [500, '2030-03-20', 'Ravi Kumar'],
    ] as const) {
      rows.push(await due(biz, { amount_paise: amount, due_date: date, contact_name: name }));
    }
    return { biz, rows, raviId: ravi.contact_id };
  }

  it('pages flat dues as {data, total, limit, offset}, in the order of /v1, each as the single read shows it', async () => {
    const { biz } = await seeded();
    const res = await biz.get('/legacy/v1/transactions');
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'limit', 'offset', 'total']);
    expect(res.body).toMatchObject({ total: 5, limit: 50, offset: 0 });
    expect(res.body.data.map((t: { dueDate: string }) => t.dueDate)).toEqual([
      '2030-03-20',
      '2030-03-15',
      '2030-03-10',
      '2030-03-05',
      '2030-03-01',
    ]);
    const v1 = await biz.get('/v1/transactions');
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(v1.body.data.map((t: { id: string }) => t.id));
    for (const item of res.body.data) {
      expect(item).toStrictEqual((await biz.get(`/legacy/v1/transactions/${item.id}`)).body);
    }
    expect(res.body.data.at(-1)).toMatchObject({ contactPhone: '+919876543210', status: 'overdue', amountPaise: 100 });
  });

  it('filters by status with the /v1 read rules: a past-due pending due is overdue', async () => {
    const biz = await h.newBusiness();
    const tomorrow = await due(biz, { amount_paise: 111, due_date: '2030-03-11', contact_name: 'Kiran Shah' });
    const paid = await due(biz, { amount_paise: 222, due_date: '2030-03-30', contact_name: 'Kiran Shah' });
    await biz.post(`/v1/transactions/${paid.id}/mark-paid`, {});
    const ids = async (query: string) =>
      (await biz.get(`/legacy/v1/transactions${query}`)).body.data.map((t: { id: string }) => t.id);

    expect(await ids('?status=pending')).toEqual([tomorrow.id]);
    expect(await ids('?status=overdue')).toEqual([]);
    expect(await ids('?status=paid')).toEqual([paid.id]);

    const start = h.clock.now();
    h.clock.advance(2 * 86_400_000);
    try {
      expect(await ids('?status=pending')).toEqual([]);
      expect(await ids('?status=overdue')).toEqual([tomorrow.id]);
      const res = await biz.get('/legacy/v1/transactions?status=overdue');
      expect(res.body).toMatchObject({ total: 1, data: [{ status: 'overdue', dueDate: '2030-03-11' }] });
      expect((await biz.get(`/legacy/v1/transactions/${tomorrow.id}`)).body.status).toBe('overdue');
      expect((await biz.get('/legacy/v1/summary')).body.overdue).toEqual({ count: 1, paise: 111 });
    } finally {
      h.clock.set(start);
    }
  });

  it("filters by contact_id, and finds nothing for another business's contact", async () => {
    const { biz, raviId } = await seeded();
    const res = await biz.get(`/legacy/v1/transactions?contact_id=${raviId}`);
    expect(res.body.total).toBe(3);
    expect(res.body.data.map((t: { contactName: string }) => t.contactName)).toEqual([
      'Ravi Kumar',
      'Ravi Kumar',
      'Ravi Kumar',
    ]);
    expect((await biz.get(`/legacy/v1/transactions?contact_id=${raviId.toUpperCase()}`)).body.total).toBe(3);

    const other = await h.newBusiness();
    const res2 = await other.get(`/legacy/v1/transactions?contact_id=${raviId}`);
    expect(res2.status).toBe(200);
    expect(res2.body).toEqual({ data: [], total: 0, limit: 50, offset: 0 });
  });

  it('bounds the due date with startDate and endDate, both inclusive, either alone', async () => {
    const { biz } = await seeded();
    const dates = async (query: string) => {
      const res = await biz.get(`/legacy/v1/transactions${query}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.total).toBe(res.body.data.length);
      return res.body.data.map((t: { dueDate: string }) => t.dueDate);
    };
    expect(await dates('?startDate=2030-03-05&endDate=2030-03-15')).toEqual(['2030-03-15', '2030-03-10', '2030-03-05']);
    expect(await dates('?startDate=2030-03-15')).toEqual(['2030-03-20', '2030-03-15']);
    expect(await dates('?endDate=2030-03-05')).toEqual(['2030-03-05', '2030-03-01']);
    expect(await dates('?startDate=2030-03-10&endDate=2030-03-10')).toEqual(['2030-03-10']);
    expect(await dates('?startDate=2030-03-16&endDate=2030-03-14')).toEqual([]);
    expect(await dates('?startDate=2030-03-02&endDate=2030-03-19&status=overdue')).toEqual(['2030-03-05']);
    const paged = await biz.get('/legacy/v1/transactions?startDate=2030-03-05&endDate=2030-03-15&limit=1&offset=1');
    expect(paged.body).toMatchObject({ total: 3, limit: 1, offset: 1, data: [{ dueDate: '2030-03-10' }] });
  });

  it('ignores invalid parameters instead of answering 400', async () => {
    const { biz } = await seeded();
    for (const query of [
      '?status=bogus',
      '?status=outstanding',
      '?contact_id=not-a-uuid',
      '?startDate=2030-02-30',
      '?endDate=10/03/2030',
      '?startDate=',
      '?search=',
      '?search=%20%2C.%20',
      '?since=2030-01-01T00:00:00Z',
      '?unknown=1&hasMore=true',
    ]) {
      const res = await biz.get(`/legacy/v1/transactions${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      expect(res.body.total, query).toBe(5);
      expect(res.body.data, query).toHaveLength(5);
    }
    expect((await biz.get('/legacy/v1/transactions?status=PAID')).body.total).toBe(0);
    expect((await biz.get('/legacy/v1/transactions?status=OVERDUE')).body.total).toBe(2);
  });

  it('clamps limit to 1-200 and offset to 0 or more; non-numbers take the defaults', async () => {
    const { biz } = await seeded();
    const page = async (query: string) => {
      const res = await biz.get(`/legacy/v1/transactions${query}`);
      expect(res.status, res.text).toBe(200);
      return { limit: res.body.limit, offset: res.body.offset, rows: res.body.data.length, total: res.body.total };
    };
    expect(await page('?limit=0')).toEqual({ limit: 1, offset: 0, rows: 1, total: 5 });
    expect(await page('?limit=-3')).toEqual({ limit: 1, offset: 0, rows: 1, total: 5 });
    expect(await page('?limit=1000')).toEqual({ limit: 200, offset: 0, rows: 5, total: 5 });
    expect(await page('?limit=abc')).toEqual({ limit: 50, offset: 0, rows: 5, total: 5 });
    expect(await page('?limit=2.9')).toEqual({ limit: 2, offset: 0, rows: 2, total: 5 });
    expect(await page('?offset=-5')).toEqual({ limit: 50, offset: 0, rows: 5, total: 5 });
    expect(await page('?offset=xyz&limit=')).toEqual({ limit: 50, offset: 0, rows: 5, total: 5 });
    expect(await page('?limit=2&offset=4')).toEqual({ limit: 2, offset: 4, rows: 1, total: 5 });
    expect(await page('?limit=2&limit=3')).toEqual({ limit: 2, offset: 0, rows: 2, total: 5 });
    expect(await page('?offset=99')).toEqual({ limit: 50, offset: 99, rows: 0, total: 5 });
  });
});

describe('GET /legacy/v1/contacts and /legacy/v1/contacts/:id', () => {
  it('answers a contact flat, with balances and payment score equal to /v1', async () => {
    const biz = await h.newBusiness();
    const createdAt = h.clock.now().toISOString();
    const late = await due(biz, {
      amount_paise: 40_000,
      due_date: '2030-01-10',
      contact_name: 'Farhan Ali',
      contact_phone: '+91 98111 22233',
    });
    await due(biz, { amount_paise: 2_500, due_date: '2030-03-25', contact_id: late.contact_id });
    const settled = await due(biz, { amount_paise: 1_000, due_date: '2030-03-01', contact_id: late.contact_id });
    await biz.post(`/v1/transactions/${settled.id}/mark-paid`, {});

    const res = await biz.get(`/legacy/v1/contacts/${late.contact_id}`);
    expect(res.status, res.text).toBe(200);
    const v1 = (await biz.get(`/v1/contacts/${late.contact_id}`)).body.data;
    expect(res.body).toStrictEqual({
      id: late.contact_id,
      name: 'Farhan Ali',
      phone: '+919811122233',
      outstandingPaise: 42_500,
      paymentScore: v1.payment_score,
      totalTransactions: 3,
      createdAt,
    });
    // Two months overdue on most of the money: the score reflects it (PRODUCT part 4).
    expect(res.body.paymentScore).toBeLessThan(80);
  });

  it('shows a contact without dues or phone with zero balances and a null phone', async () => {
    const biz = await h.newBusiness();
    const createdAt = h.clock.now().toISOString();
    const created = await biz.post('/v1/contacts', { name: 'Nisha Patel' });
    const res = await biz.get(`/legacy/v1/contacts/${created.body.data.id}`);
    expect(res.body).toStrictEqual({
      id: created.body.data.id,
      name: 'Nisha Patel',
      phone: null,
      outstandingPaise: 0,
      paymentScore: 100,
      totalTransactions: 0,
      createdAt,
    });
  });

  it('pages contacts as {data, total, limit, offset}, newest first like /v1, each as the single read shows it', async () => {
    const biz = await h.newBusiness();
    for (const name of ['Alpha Traders', 'Beta Mills', 'Gamma Foods']) {
      h.clock.advance(1000);
      expect((await biz.post('/v1/contacts', { name, phone: '080 2222 3333' })).status).toBe(201);
    }
    await due(biz, { amount_paise: 900, due_date: '2030-03-20', contact_name: 'Beta Mills' });
    const res = await biz.get('/legacy/v1/contacts');
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'limit', 'offset', 'total']);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(res.body.data.map((c: { name: string }) => c.name)).toEqual(['Gamma Foods', 'Beta Mills', 'Alpha Traders']);
    const v1 = await biz.get('/v1/contacts');
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(v1.body.data.map((c: { id: string }) => c.id));
    for (const item of res.body.data) {
      expect(item).toStrictEqual((await biz.get(`/legacy/v1/contacts/${item.id}`)).body);
    }
    expect(res.body.data[1]).toMatchObject({ phone: '+918022223333', outstandingPaise: 900, totalTransactions: 1 });

    expect((await biz.get('/legacy/v1/contacts?limit=0&offset=-1')).body).toMatchObject({
      limit: 1,
      offset: 0,
      total: 3,
      data: [{ name: 'Gamma Foods' }],
    });
    expect((await biz.get('/legacy/v1/contacts?limit=5000&offset=2')).body).toMatchObject({
      limit: 200,
      offset: 2,
      total: 3,
      data: [{ name: 'Alpha Traders' }],
    });
    const ignored = await biz.get('/legacy/v1/contacts?limit=ten&phone=12&search=%2C&foo=bar');
    expect(ignored.body).toMatchObject({ limit: 50, offset: 0, total: 3 });
  });
});

describe('OpenAPI', () => {
  it('documents the earlier shape under its own tag, with its response schemas', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    for (const path of [
      '/legacy/v1/summary',
      '/legacy/v1/transactions',
      '/legacy/v1/transactions/{id}',
      '/legacy/v1/contacts',
      '/legacy/v1/contacts/{id}',
    ]) {
      expect(doc.paths[path]?.get?.tags, path).toEqual(['Legacy (earlier shape)']);
    }
    expect(doc.paths['/v1/transactions'].get.tags).toEqual(['Transactions']);
    expect(Object.keys(doc.components.schemas.LegacyTransaction.properties).sort()).toEqual(TRANSACTION_FIELDS);
    expect(Object.keys(doc.components.schemas.LegacyContact.properties).sort()).toEqual([
      'createdAt',
      'id',
      'name',
      'outstandingPaise',
      'paymentScore',
      'phone',
      'totalTransactions',
    ]);
    const params = doc.paths['/legacy/v1/transactions'].get.parameters.map((p: { name: string }) => p.name).sort();
    expect(params).toEqual(['contact_id', 'endDate', 'limit', 'offset', 'search', 'startDate', 'status']);
  });
});
