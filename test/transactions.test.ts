import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

// 2026-11-21 12:00 in Asia/Kolkata (the default business time zone).
const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

function due(biz: TestBusiness, body: Record<string, unknown>) {
  return biz.post('/v1/transactions', { amount_paise: 10_000, due_date: '2026-12-01', ...body });
}

describe('POST /v1/transactions', () => {
  it('creates a pending due with every field of the spec (201)', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/transactions', {
      amount_paise: 123_450,
      due_date: '2026-12-15',
      contact_name: 'Meera Textiles',
      contact_phone: '98765 11111',
      notes: 'October supplies',
      invoice_number: 'INV-0042',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      contact_created: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        contact_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        contact_name: 'Meera Textiles',
        contact_phone: '919876511111',
        amount_paise: 123_450,
        currency: 'INR',
        status: 'pending',
        direction: 'receivable',
        due_date: '2026-12-15T00:00:00.000Z',
        paid_at: null,
        utr: null,
        payment_method: null,
        invoice_number: 'INV-0042',
        notes: 'October supplies',
        recurrence: null,
        series_id: null,
        reminders_paused: false,
        promise: null,
        amount_paid_paise: 0,
        amount_adjusted_paise: 0,
        balance_paise: 123_450,
        deleted_at: null,
        reminder_count: 0,
        pay_page_url: expect.stringMatching(/^https:\/\/pay\.example\.test\/pay\/[A-Za-z0-9_-]{22,}$/),
        payment_reference: expect.stringMatching(/^R[A-Z0-9]{8}$/),
        created_at: NOW,
        updated_at: NOW,
      },
    });
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('reuses a contact found by name (case-insensitive, trimmed) and fills a missing phone', async () => {
    const biz = await h.newBusiness();
    const first = await due(biz, { contact_name: 'Kiran Stores' });
    expect(first.body.data.contact_phone).toBeNull();
    const second = await due(biz, { contact_name: '  KIRAN stores', contact_phone: '9876522222' });
    expect(second.status).toBe(201);
    expect(second.body.contact_created).toBe(false);
    expect(second.body.data.contact_id).toBe(first.body.data.contact_id);
    expect(second.body.data.contact_name).toBe('Kiran Stores');
    expect(second.body.data.contact_phone).toBe('919876522222');
  });

  it('never replaces an existing different phone', async () => {
    const biz = await h.newBusiness();
    const first = await due(biz, { contact_name: 'Phone Keeper', contact_phone: '9876533333' });
    const second = await due(biz, { contact_name: 'Phone Keeper', contact_phone: '9876544444' });
    expect(second.status).toBe(201);
    expect(second.body.data.contact_phone).toBe('919876533333');
    const contact = await biz.get(`/v1/contacts/${first.body.data.contact_id}`);
    expect(contact.body.data.phone).toBe('919876533333');
  });

  it('takes an existing contact by id', async () => {
    const biz = await h.newBusiness();
    const contact = await biz.post('/v1/contacts', { name: 'By Id', phone: '9876555555' });
    const res = await due(biz, { contact_id: contact.body.data.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      contact_created: false,
      data: { contact_id: contact.body.data.id, contact_name: 'By Id', contact_phone: '919876555555' },
    });
  });

  it('takes the contact by id as it is now: renamed or given a new phone since its last due, the next due says so', async () => {
    // On PostgreSQL a contact once read is kept and checked by the create's own statement.
    const biz = await h.newBusiness();
    const contact = await biz.post('/v1/contacts', { name: 'Kept Buyer', phone: '9876555111' });
    const id = contact.body.data.id;
    const first = await due(biz, { contact_id: id });
    expect(first.body.data).toMatchObject({ contact_name: 'Kept Buyer', contact_phone: '919876555111' });
    const changes = [
      { body: { name: 'Renamed Buyer' }, name: 'Renamed Buyer', phone: '919876555111' },
      { body: { phone: '9876555222' }, name: 'Renamed Buyer', phone: '919876555222' },
      { body: { phone: null }, name: 'Renamed Buyer', phone: null },
    ];
    for (const change of changes) {
      expect((await biz.patch(`/v1/contacts/${id}`, change.body)).status).toBe(200);
      for (let i = 0; i < 2; i++) {
        const res = await due(biz, { contact_id: id });
        expect(res.status).toBe(201);
        expect(res.body.data).toMatchObject({ contact_id: id, contact_name: change.name, contact_phone: change.phone });
        const event = await h.store.db
          .selectFrom('events')
          .select('payload')
          .where('business_id', '=', biz.business.id)
          .where('type', '=', 'transaction.created')
          .where('payload', 'like', `%${res.body.data.id}%`)
          .executeTakeFirstOrThrow();
        expect(JSON.parse(event.payload)).toMatchObject({ contactName: change.name, contactPhone: change.phone });
      }
    }
    expect((await biz.get('/v1/transactions')).body.total).toBe(7);
  });

  it('allows past due dates (importing old dues) and reads them as overdue', async () => {
    const biz = await h.newBusiness();
    const res = await due(biz, { due_date: '2025-03-31', contact_name: 'Old Debt' });
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('overdue');
  });

  it('answers 400 naming the field for each invalid input, and creates nothing', async () => {
    const biz = await h.newBusiness();
    const cases: [Record<string, unknown>, string][] = [
      [{ amount_paise: undefined, contact_name: 'AB' }, 'amount_paise'],
      [{ amount_paise: 0, contact_name: 'AB' }, 'amount_paise'],
      [{ amount_paise: -5, contact_name: 'AB' }, 'amount_paise'],
      [{ amount_paise: 10.5, contact_name: 'AB' }, 'amount_paise'],
      [{ amount_paise: '100', contact_name: 'AB' }, 'amount_paise'],
      [{ amount_paise: 1e13, contact_name: 'AB' }, 'amount_paise'],
      [{ due_date: undefined, contact_name: 'AB' }, 'due_date'],
      [{ due_date: '2026-02-30', contact_name: 'AB' }, 'due_date'],
      [{ due_date: '2026-13-01', contact_name: 'AB' }, 'due_date'],
      [{ due_date: '21/11/2026', contact_name: 'AB' }, 'due_date'],
      [{ due_date: '2026-11-21T00:00:00Z', contact_name: 'AB' }, 'due_date'],
      [{}, 'contact_name'],
      [{ contact_name: 'AB', contact_id: MISSING }, 'contact_id'],
      [{ contact_name: 'A' }, 'contact_name'],
      [{ contact_name: '   A   ' }, 'contact_name'],
      [{ contact_name: 'x'.repeat(121) }, 'contact_name'],
      [{ contact_id: 'not-a-uuid' }, 'contact_id'],
      [{ contact_name: 'AB', contact_phone: '123' }, 'contact_phone'],
      [{ contact_name: 'AB', notes: 'n'.repeat(501) }, 'notes'],
      [{ contact_name: 'AB', invoice_number: 'i'.repeat(61) }, 'invoice_number'],
      [{ contact_name: 'AB', status: 'paid' }, 'status'],
    ];
    for (const [body, field] of cases) {
      const res = await due(biz, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.field, JSON.stringify(body)).toBe(field);
      expect(res.body.error.message, JSON.stringify(body)).toContain(field);
    }
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
    expect((await biz.get('/v1/contacts')).body.total).toBe(0);
    expect((await biz.get('/v1/summary')).body.data.pending).toEqual({ count: 0, paise: 0 });
  });

  it('accepts the limits exactly', async () => {
    const biz = await h.newBusiness();
    const res = await due(biz, {
      contact_name: 'x'.repeat(120),
      notes: 'n'.repeat(500),
      invoice_number: 'i'.repeat(60),
      amount_paise: 1,
      due_date: '2028-02-29',
    });
    expect(res.status).toBe(201);
  });

  it('answers 422 for an unknown contact_id or another business contact, and creates nothing', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const foreign = await b.post('/v1/contacts', { name: 'Foreign Contact' });
    for (const id of [MISSING, foreign.body.data.id]) {
      const res = await due(a, { contact_id: id });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'unprocessable', field: 'contact_id' });
    }
    expect((await a.get('/v1/transactions')).body.total).toBe(0);
    expect((await b.get('/v1/transactions')).body.total).toBe(0);
  });

  it('gives every due its own unguessable pay page token', async () => {
    const biz = await h.newBusiness();
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await due(biz, { contact_name: 'Token Person' });
      tokens.add(res.body.data.pay_page_url.split('/pay/')[1]);
    }
    expect(tokens.size).toBe(5);
    for (const token of tokens) expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('uses the business currency', async () => {
    const biz = await h.newBusiness({ currency: 'USD', country: 'US', phone: '+1 415 555 0101' });
    const res = await due(biz, { contact_name: 'Dollar Buyer' });
    expect(res.body.data.currency).toBe('USD');
  });
});

describe('GET /v1/transactions/{id}', () => {
  it('returns the due with the steps of its reminder sequence', async () => {
    const biz = await h.newBusiness();
    const created = await due(biz, { contact_name: 'Getter' });
    const res = await biz.get(`/v1/transactions/${created.body.data.id}`);
    expect(res.status).toBe(200);
    const { reminders, ...read } = res.body.data;
    expect(read).toEqual(created.body.data);
    expect(reminders.map((r: { template: string }) => r.template)).toEqual([
      'reminder_upcoming',
      'reminder_due_today',
      'reminder_overdue_week',
      'reminder_final',
    ]);
  });

  it('accepts an id in upper case', async () => {
    const biz = await h.newBusiness();
    const created = await due(biz, { contact_name: 'Upper Case' });
    const res = await biz.get(`/v1/transactions/${created.body.data.id.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(created.body.data.id);
    const byContact = await biz.get(`/v1/transactions?contact_id=${created.body.data.contact_id.toUpperCase()}`);
    expect(byContact.body.total).toBe(1);
    const again = await due(biz, { contact_id: created.body.data.contact_id.toUpperCase() });
    expect(again.status).toBe(201);
    expect(again.body.data.contact_id).toBe(created.body.data.contact_id);
  });

  it('answers 404 for an unknown id, a non-uuid and another business due', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const created = await due(a, { contact_name: 'Hidden' });
    expect((await a.get(`/v1/transactions/${MISSING}`)).status).toBe(404);
    expect((await a.get('/v1/transactions/12345')).status).toBe(404);
    const foreign = await b.get(`/v1/transactions/${created.body.data.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: { code: 'not_found', message: 'transaction not found' } });
  });
});

describe('GET /v1/transactions', () => {
  it('orders by due date, then creation time, newest first, with stable paging', async () => {
    const biz = await h.newBusiness();
    const dates = ['2026-12-05', '2026-12-20', '2026-12-05', '2026-12-10', '2026-12-20'];
    const ids: string[] = [];
    for (const d of dates) {
      ids.push((await due(biz, { due_date: d, contact_name: 'Order Test' })).body.data.id);
      h.clock.advance(1000);
    }
    const res = await biz.get('/v1/transactions');
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([ids[4], ids[1], ids[3], ids[2], ids[0]]);
    const pages = [];
    for (let offset = 0; offset < 5; offset += 2) {
      pages.push(
        ...(await biz.get(`/v1/transactions?limit=2&offset=${offset}`)).body.data.map((t: { id: string }) => t.id),
      );
    }
    expect(pages).toEqual(res.body.data.map((t: { id: string }) => t.id));
  });

  it('returns paging metadata with defaults', async () => {
    const biz = await h.newBusiness();
    for (let i = 0; i < 3; i++) await due(biz, { contact_name: 'Meta' });
    const res = await biz.get('/v1/transactions');
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0, hasMore: false });
    const page = await biz.get('/v1/transactions?limit=2');
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0, hasMore: true });
    const beyond = await biz.get('/v1/transactions?offset=10');
    expect(beyond.body).toMatchObject({ data: [], total: 3, hasMore: false });
  });

  it('filters by status with the overdue read rule (past due date counts as overdue)', async () => {
    const biz = await h.newBusiness();
    const future = await due(biz, { due_date: '2026-11-30', contact_name: 'Status A' });
    const today = await due(biz, { due_date: '2026-11-21', contact_name: 'Status A' });
    const yesterday = await due(biz, { due_date: '2026-11-20', contact_name: 'Status B' });
    const paid = await due(biz, { due_date: '2026-11-10', contact_name: 'Status B' });
    await biz.post(`/v1/transactions/${paid.body.data.id}/mark-paid`, {});
    const ids = async (status: string) =>
      (await biz.get(`/v1/transactions?status=${status}`)).body.data.map((t: { id: string }) => t.id).sort();
    expect(await ids('pending')).toEqual([future.body.data.id, today.body.data.id].sort());
    expect(await ids('overdue')).toEqual([yesterday.body.data.id]);
    expect(await ids('outstanding')).toEqual([future.body.data.id, today.body.data.id, yesterday.body.data.id].sort());
    expect(await ids('paid')).toEqual([paid.body.data.id]);
    const overdue = await biz.get('/v1/transactions?status=overdue');
    expect(overdue.body).toMatchObject({ total: 1, data: [{ status: 'overdue' }] });
    expect((await biz.get('/v1/transactions?status=pending')).body.total).toBe(2);
    expect((await biz.get('/v1/transactions?status=outstanding')).body.total).toBe(3);
    expect((await biz.get('/v1/transactions?status=paid')).body.total).toBe(1);

    // After local midnight the due of "today" becomes overdue, without any write.
    h.clock.set('2026-11-21T18:31:00.000Z'); // 00:01 on 22 Nov in Kolkata
    try {
      expect(await ids('overdue')).toEqual([today.body.data.id, yesterday.body.data.id].sort());
      expect((await biz.get(`/v1/transactions/${today.body.data.id}`)).body.data.status).toBe('overdue');
    } finally {
      h.clock.set(NOW);
    }
  });

  it('filters by contact_id', async () => {
    const biz = await h.newBusiness();
    const mine = await due(biz, { contact_name: 'Contact One' });
    await due(biz, { contact_name: 'Contact Two' });
    const res = await biz.get(`/v1/transactions?contact_id=${mine.body.data.contact_id}`);
    expect(res.body.total).toBe(1);
    expect(res.body.data[0].id).toBe(mine.body.data.id);
    const combined = await biz.get(`/v1/transactions?contact_id=${mine.body.data.contact_id}&status=paid`);
    expect(combined.body.total).toBe(0);
  });

  it('returns rows updated on or after `since` for incremental sync', async () => {
    const biz = await h.newBusiness();
    // Far-future due dates: no overdue sweep (from any process sharing the store) touches them.
    const old = await due(biz, { contact_name: 'Sync', due_date: '2099-12-01' });
    h.clock.advance(60_000);
    const checkpoint = h.clock.now().toISOString();
    const fresh = await due(biz, { contact_name: 'Sync', due_date: '2099-12-01' });
    h.clock.advance(60_000);
    const res = await biz.get(`/v1/transactions?since=${encodeURIComponent(checkpoint)}`);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([fresh.body.data.id]);
    expect(res.body.total).toBe(1);
    await biz.post(`/v1/transactions/${old.body.data.id}/mark-paid`, {});
    const after = await biz.get(`/v1/transactions?since=${encodeURIComponent(checkpoint)}`);
    expect(after.body.total).toBe(2);
    // Offsets in other notations mean the same instant.
    const offsetForm = new Date(Date.parse(checkpoint) + 5.5 * 3600_000).toISOString().replace('Z', '+05:30');
    expect((await biz.get(`/v1/transactions?since=${encodeURIComponent(offsetForm)}`)).body.total).toBe(2);
  });

  it('answers 400 naming the parameter for bad filters', async () => {
    const biz = await h.newBusiness();
    const cases: [string, string][] = [
      ['status=late', 'status'],
      ['contact_id=123', 'contact_id'],
      ['since=yesterday', 'since'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=abc', 'offset'],
    ];
    for (const [query, field] of cases) {
      const res = await biz.get(`/v1/transactions?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.field, query).toBe(field);
    }
  });

  it('shows a business only its own dues', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const mine = await due(a, { contact_name: 'Isolated' });
    expect((await b.get('/v1/transactions')).body.total).toBe(0);
    expect((await b.get(`/v1/transactions?contact_id=${mine.body.data.contact_id}`)).body.total).toBe(0);
  });
});
