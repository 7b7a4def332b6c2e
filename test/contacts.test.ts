import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z' });
});
afterAll(() => h.close());

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('POST /v1/contacts', () => {
  it('creates a contact (201) with a normalised phone', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/contacts', { name: '  Asha Traders ', phone: '098765 43210' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      created: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Asha Traders',
        phone: '919876543210',
        risk_flag: 'low',
        created_at: '2026-11-21T06:30:00.000Z',
        updated_at: '2026-11-21T06:30:00.000Z',
        credit_paise: 0,
        balance_paise: 0,
        account_url: expect.stringMatching(/\/a\/[A-Za-z0-9_-]{22,}$/),
        payment_reference: expect.stringMatching(/^R[A-Z0-9]{7}$/),
        language: null,
        assigned_to: null,
      },
    });
  });

  it('returns the existing contact (200, created false) for the same name in any case', async () => {
    const biz = await h.newBusiness();
    const first = await biz.post('/v1/contacts', { name: 'Bala Stores' });
    const again = await biz.post('/v1/contacts', { name: 'bala stores  ' });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.data.name).toBe('Bala Stores');
    expect((await biz.get('/v1/contacts')).body.total).toBe(1);
  });

  it('parses phones in any format with the business country as default', async () => {
    const biz = await h.newBusiness();
    const cases: [string, string][] = [
      ['+91 98765-43210', '919876543210'],
      ['(0)98765 43211', '919876543211'],
      ['+1 (415) 555-0134', '14155550134'],
    ];
    for (const [i, [input, expected]] of cases.entries()) {
      const res = await biz.post('/v1/contacts', { name: `Phone case ${i}`, phone: input });
      expect(res.status, input).toBe(201);
      expect(res.body.data.phone, input).toBe(expected);
    }
    const us = await h.newBusiness({ country: 'US', phone: '+1 415 555 0100' });
    const local = await us.post('/v1/contacts', { name: 'Local', phone: '(415) 555-0199' });
    expect(local.body.data.phone).toBe('14155550199');
  });

  it('answers 400 naming the field for bad input, and creates nothing', async () => {
    const biz = await h.newBusiness();
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: 'A' }, 'name'],
      [{ name: '  A  ' }, 'name'],
      [{ name: 'x'.repeat(121) }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'Valid Name', phone: '12' }, 'phone'],
      [{ name: 'Valid Name', phone: 'call me' }, 'phone'],
      [{ name: 'Valid Name', phone: 9876543210 }, 'phone'],
      [{ name: 'Valid Name', extra: true }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await biz.post('/v1/contacts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.field, JSON.stringify(body)).toBe(field);
      expect(res.body.error.message).toContain(field);
    }
    expect((await biz.get('/v1/contacts')).body.total).toBe(0);
  });

  it('keeps contacts of different businesses apart, even with the same name', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const ca = await a.post('/v1/contacts', { name: 'Common Name' });
    const cb = await b.post('/v1/contacts', { name: 'Common Name' });
    expect(cb.status).toBe(201);
    expect(cb.body.data.id).not.toBe(ca.body.data.id);
  });

  it('emits contact.created once, only for a new contact', async () => {
    const biz = await h.newBusiness();
    await biz.post('/v1/contacts', { name: 'Event Person', phone: '9876500001' });
    await biz.post('/v1/contacts', { name: 'event person' });
    const events = await h.store.db
      .selectFrom('events')
      .selectAll()
      .where('business_id', '=', biz.business.id)
      .execute();
    expect(events.map((e) => e.type)).toEqual(['contact.created']);
    expect(JSON.parse(events[0]?.payload ?? '{}')).toEqual({
      id: expect.any(String),
      name: 'Event Person',
      phone: '919876500001',
      createdAt: '2026-11-21T06:30:00.000Z',
    });
  });
});

describe('GET /v1/contacts', () => {
  it('lists newest first with paging metadata', async () => {
    const biz = await h.newBusiness();
    for (let i = 0; i < 5; i++) {
      await biz.post('/v1/contacts', { name: `Paged ${i}` });
      h.clock.advance(1000);
    }
    const page = await biz.get('/v1/contacts?limit=2&offset=1');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1, hasMore: true });
    expect(page.body.data.map((c: { name: string }) => c.name)).toEqual(['Paged 3', 'Paged 2']);
    const last = await biz.get('/v1/contacts?limit=2&offset=4');
    expect(last.body).toMatchObject({ total: 5, hasMore: false });
    expect(last.body.data).toHaveLength(1);
    const defaults = await biz.get('/v1/contacts');
    expect(defaults.body).toMatchObject({ limit: 50, offset: 0, hasMore: false });
    expect(Object.keys(defaults.body.data[0]).sort()).toEqual(
      [
        'account_url',
        'assigned_to',
        'balance_paise',
        'created_at',
        'credit_paise',
        'id',
        'language',
        'name',
        'payment_reference',
        'phone',
        'risk_flag',
        'updated_at',
      ].sort(),
    );
  });

  it('searches names case-insensitively by substring and phones by their last digits', async () => {
    const biz = await h.newBusiness();
    await biz.post('/v1/contacts', { name: 'Ramesh Kumar', phone: '9876512345' });
    await biz.post('/v1/contacts', { name: 'Suresh Rao', phone: '9876999999' });
    await biz.post('/v1/contacts', { name: '100% Pure_Oils', phone: '9123412345' });
    const byName = await biz.get('/v1/contacts?search=ESH');
    expect(byName.body.total).toBe(2);
    const byRare = await biz.get('/v1/contacts?search=kum');
    expect(byRare.body.data.map((c: { name: string }) => c.name)).toEqual(['Ramesh Kumar']);
    // LIKE wildcards in the search are literal text.
    expect((await biz.get(`/v1/contacts?search=${encodeURIComponent('0%')}`)).body.total).toBe(1);
    expect((await biz.get(`/v1/contacts?search=${encodeURIComponent('e_o')}`)).body.total).toBe(1);
    const byPhone = await biz.get('/v1/contacts?phone=512345');
    expect(byPhone.body.data.map((c: { name: string }) => c.name)).toEqual(['Ramesh Kumar']);
    const byPhoneShared = await biz.get('/v1/contacts?phone=412345');
    expect(byPhoneShared.body.total).toBe(1);
    const nines = await biz.get('/v1/contacts?phone=999999');
    expect(nines.body.data.map((c: { name: string }) => c.name)).toEqual(['Suresh Rao']);
    const both = await biz.get('/v1/contacts?search=rao&phone=512345');
    expect(both.body.total).toBe(0);
  });

  it('answers 400 for a search under 2 characters, a phone under 6 digits and bad paging', async () => {
    const biz = await h.newBusiness();
    const cases: [string, string][] = [
      ['search=a', 'search'],
      ['search=%20a%20', 'search'],
      ['phone=12345', 'phone'],
      ['phone=12-34-5', 'phone'],
      ['phone=abcdefg', 'phone'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=-1', 'offset'],
    ];
    for (const [query, field] of cases) {
      const res = await biz.get(`/v1/contacts?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.field, query).toBe(field);
    }
    expect((await biz.get('/v1/contacts?limit=200')).status).toBe(200);
  });

  it('does not show another business its contacts', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    await a.post('/v1/contacts', { name: 'Only Mine' });
    expect((await b.get('/v1/contacts?search=only')).body.total).toBe(0);
    expect((await b.get('/v1/contacts')).body.total).toBe(0);
  });
});

describe('GET /v1/contacts/{id}', () => {
  it('adds balances, payment score and risk flag', async () => {
    const biz = await h.newBusiness();
    const contact = await biz.post('/v1/contacts', { name: 'Balance Person' });
    const id = contact.body.data.id;
    // 2026-11-21 in Asia/Kolkata; one future due, one 20 days overdue, one paid.
    await biz.post('/v1/transactions', { amount_paise: 1000, due_date: '2026-12-01', contact_id: id });
    await biz.post('/v1/transactions', { amount_paise: 2500, due_date: '2026-11-01', contact_id: id });
    const paid = await biz.post('/v1/transactions', { amount_paise: 700, due_date: '2026-11-20', contact_id: id });
    await biz.post(`/v1/transactions/${paid.body.data.id}/mark-paid`, {});
    const res = await biz.get(`/v1/contacts/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      name: 'Balance Person',
      outstanding_paise: 3500,
      pending_count: 1,
      overdue_count: 1,
      total_transactions: 3,
      risk_flag: 'medium',
    });
    expect(res.body.data.payment_score).toBeGreaterThan(0);
    expect(res.body.data.payment_score).toBeLessThan(80);
    // Standings of many contacts (the list, the create answer) come from other statements: the same figures.
    const standings = await h.services.contacts.standings(h.store.db, biz.business, [id]);
    expect(standings.get(id)).toEqual({
      paymentScore: res.body.data.payment_score,
      riskFlag: res.body.data.risk_flag,
      outstandingPaise: 3500,
      pendingCount: 1,
      overdueCount: 1,
      totalTransactions: 3,
    });
  });

  it('gives a contact without history a score of 100 and a low risk flag', async () => {
    const biz = await h.newBusiness();
    const contact = await biz.post('/v1/contacts', { name: 'New Person' });
    const res = await biz.get(`/v1/contacts/${contact.body.data.id}`);
    expect(res.body.data).toMatchObject({
      payment_score: 100,
      risk_flag: 'low',
      outstanding_paise: 0,
      pending_count: 0,
      overdue_count: 0,
      total_transactions: 0,
    });
  });

  it('flags a buyer 60+ days overdue as high risk, in the list too', async () => {
    const biz = await h.newBusiness();
    const due = await biz.post('/v1/transactions', {
      amount_paise: 5000,
      due_date: '2026-09-01',
      contact_name: 'Late Payer',
    });
    const one = await biz.get(`/v1/contacts/${due.body.data.contact_id}`);
    expect(one.body.data.risk_flag).toBe('high');
    const list = await biz.get('/v1/contacts?search=late');
    expect(list.body.data[0].risk_flag).toBe('high');
  });

  it('answers 404 for an unknown id and for another business contact', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const contact = await a.post('/v1/contacts', { name: 'Private Person' });
    expect((await a.get(`/v1/contacts/${MISSING}`)).status).toBe(404);
    const other = await b.get(`/v1/contacts/${contact.body.data.id}`);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
  });
});

describe('PATCH /v1/contacts/{id}', () => {
  it('renames, changes and removes the phone, and moves updated_at', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/contacts', { name: 'Old Name', phone: '9876500011' });
    const id = created.body.data.id;
    h.clock.advance(5000);
    const renamed = await biz.patch(`/v1/contacts/${id}`, { name: ' New Name ', phone: '+91 98765 00012' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id, name: 'New Name', phone: '919876500012' });
    expect(renamed.body.data.updated_at).not.toBe(created.body.data.updated_at);
    const cleared = await biz.patch(`/v1/contacts/${id}`, { phone: null });
    expect(cleared.body.data.phone).toBeNull();
    expect((await biz.get(`/v1/contacts/${id}`)).body.data).toMatchObject({ name: 'New Name', phone: null });
    // The old name is free again; the new name is taken.
    expect((await biz.post('/v1/contacts', { name: 'old name' })).status).toBe(201);
    expect((await biz.post('/v1/contacts', { name: 'new name' })).status).toBe(200);
  });

  it('lets a contact change the case of its own name', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/contacts', { name: 'lower case' });
    const res = await biz.patch(`/v1/contacts/${created.body.data.id}`, { name: 'Lower Case' });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe('Lower Case');
  });

  it('answers 409 when another contact has the name, and changes nothing', async () => {
    const biz = await h.newBusiness();
    await biz.post('/v1/contacts', { name: 'Taken Name' });
    const other = await biz.post('/v1/contacts', { name: 'Other Name', phone: '9876500021' });
    const res = await biz.patch(`/v1/contacts/${other.body.data.id}`, { name: 'TAKEN name', phone: '9876500022' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', field: 'name' });
    const after = await biz.get(`/v1/contacts/${other.body.data.id}`);
    expect(after.body.data).toMatchObject({ name: 'Other Name', phone: '919876500021' });
  });

  it('answers 400 for bad input and 404 for unknown or foreign ids', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const created = await a.post('/v1/contacts', { name: 'Patch Target' });
    const id = created.body.data.id;
    for (const [body, field] of [
      [{ name: 'x' }, 'name'],
      [{ phone: 'nope' }, 'phone'],
      [{ phone: 12345 }, 'phone'],
      [{ risk_flag: 'low' }, 'risk_flag'],
    ] as const) {
      const res = await a.patch(`/v1/contacts/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field).toBe(field);
    }
    expect((await a.patch(`/v1/contacts/${MISSING}`, { name: 'Whoever' })).status).toBe(404);
    expect((await b.patch(`/v1/contacts/${id}`, { name: 'Hijacked' })).status).toBe(404);
    expect((await a.get(`/v1/contacts/${id}`)).body.data.name).toBe('Patch Target');
  });

  it('accepts an empty patch (or none) and returns the contact unchanged', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/contacts', { name: 'Unchanged' });
    const read = (await biz.get(`/v1/contacts/${created.body.data.id}`)).body.data;
    const res = await biz.patch(`/v1/contacts/${created.body.data.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(read);
    expect(res.body.data).toMatchObject(created.body.data);
    const none = await biz.patch(`/v1/contacts/${created.body.data.id}`);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual(read);
  });

  it('answers the contact with every field the single read shows (balances, reminders_paused)', async () => {
    const biz = await h.newBusiness();
    const due = await biz.post('/v1/transactions', {
      contact_name: 'Full Answer',
      amount_paise: 700,
      due_date: '2026-01-01',
    });
    expect(due.status).toBe(201);
    const id = due.body.data.contact_id;
    for (const body of [{ reminders_paused: true }, { name: 'Full Answer 2' }, { phone: '+91 98765 33333' }]) {
      const res = await biz.patch(`/v1/contacts/${id}`, body);
      expect(res.status, res.text).toBe(200);
      const read = await biz.get(`/v1/contacts/${id}`);
      expect(res.body.data).toEqual(read.body.data);
    }
    const res = await biz.patch(`/v1/contacts/${id}`, { reminders_paused: false });
    expect(res.body.data).toMatchObject({ reminders_paused: false, outstanding_paise: 700, total_transactions: 1 });
  });
});
