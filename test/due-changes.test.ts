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

describe('PATCH /v1/transactions/{id}', () => {
  it('changes amount, notes and invoice, moves updated_at, totals and balances, and emits transaction.updated', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { notes: 'old', invoice_number: 'INV-1' });
    h.clock.advance(5000);
    const res = await biz.patch(`/v1/transactions/${d.id}`, {
      amount_paise: 15_000,
      notes: null,
      invoice_number: 'INV-2',
    });
    expect(res.status).toBe(200);
    const later = new Date(Date.parse(NOW) + 5000).toISOString();
    expect(res.body.data).toMatchObject({
      amount_paise: 15_000,
      balance_paise: 15_000,
      notes: null,
      invoice_number: 'INV-2',
      updated_at: later,
      status: 'pending',
    });
    const { reminders, ...read } = (await biz.get(`/v1/transactions/${d.id}`)).body.data;
    expect(read).toEqual(res.body.data);
    expect(reminders).toHaveLength(4);
    const summary = await summaryOf(biz);
    expect(summary.pending).toEqual({ count: 1, paise: 15_000 });
    expect(summary.total_outstanding_paise).toBe(15_000);
    expect((await contactOf(biz, d.contact_id)).outstanding_paise).toBe(15_000);
    const events = await eventsOf(h, biz.business.id, 'transaction.updated');
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({
      id: d.id,
      amountPaise: 15_000,
      notes: null,
      invoiceNumber: 'INV-2',
      status: 'pending',
      dueDate: '2026-12-01',
      updatedAt: later,
    });
  });

  it('emits nothing and keeps updated_at when nothing changes', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { notes: 'same' });
    h.clock.advance(5000);
    const res = await biz.patch(`/v1/transactions/${d.id}`, {
      amount_paise: 10_000,
      notes: 'same',
      reminders_paused: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.updated_at).toBe(d.updated_at);
    expect(await eventsOf(h, biz.business.id, 'transaction.updated')).toHaveLength(0);
  });

  it('makes a due overdue with a past date and pending again with a future one, moving the totals', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 7000 });
    const past = await biz.patch(`/v1/transactions/${d.id}`, { due_date: '2026-11-01' });
    expect(past.body.data.status).toBe('overdue');
    let summary = await summaryOf(biz);
    expect(summary.overdue).toEqual({ count: 1, paise: 7000 });
    expect(summary.pending).toEqual({ count: 0, paise: 0 });
    expect((await contactOf(biz, d.contact_id)).overdue_count).toBe(1);
    expect((await biz.get('/v1/transactions?status=overdue')).body.total).toBe(1);

    const future = await biz.patch(`/v1/transactions/${d.id}`, { due_date: '2026-12-20' });
    expect(future.body.data.status).toBe('pending');
    expect(future.body.data.due_date).toBe('2026-12-20T00:00:00.000Z');
    summary = await summaryOf(biz);
    expect(summary.overdue).toEqual({ count: 0, paise: 0 });
    expect(summary.pending).toEqual({ count: 1, paise: 7000 });
    expect((await biz.get('/v1/transactions?status=pending')).body.total).toBe(1);
  });

  it('reschedules the reminder sequence to the new date, and cancels it while paused', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const at = (date: string) => `${date}T04:30:00.000Z`; // 10:00 in Kolkata
    const steps = async () => (await biz.get(`/v1/transactions/${d.id}`)).body.data.reminders;
    expect(await steps()).toEqual([
      {
        template: 'reminder_upcoming',
        scheduled_for: at('2026-11-28'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
      {
        template: 'reminder_due_today',
        scheduled_for: at('2026-12-01'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
      {
        template: 'reminder_overdue_week',
        scheduled_for: at('2026-12-08'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
      {
        template: 'reminder_final',
        scheduled_for: at('2026-12-31'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
    ]);
    await biz.patch(`/v1/transactions/${d.id}`, { due_date: '2026-12-05' });
    const moved = [
      {
        template: 'reminder_upcoming',
        scheduled_for: at('2026-12-02'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
      {
        template: 'reminder_due_today',
        scheduled_for: at('2026-12-05'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
      {
        template: 'reminder_overdue_week',
        scheduled_for: at('2026-12-12'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
      {
        template: 'reminder_final',
        scheduled_for: at('2027-01-04'),
        status: 'scheduled',
        reason: null,
        delivery: null,
      },
    ];
    expect(await steps()).toEqual(moved);
    const paused = await biz.patch(`/v1/transactions/${d.id}`, { reminders_paused: true });
    expect(paused.body.data.reminders_paused).toBe(true);
    expect(await steps()).toEqual(moved.map((s) => ({ ...s, status: 'cancelled', reason: 'paused' })));
    await biz.patch(`/v1/transactions/${d.id}`, { reminders_paused: false });
    expect(await steps()).toEqual(moved);
    expect(await remindersOf(h, d.id)).toHaveLength(4);
  });

  it.each([
    [{}, undefined],
    [{ colour: 'red' }, 'colour'],
    [{ amount_paise: 0 }, 'amount_paise'],
    [{ amount_paise: 'ten' }, 'amount_paise'],
    [{ due_date: '2026-02-30' }, 'due_date'],
    [{ notes: 'x'.repeat(501) }, 'notes'],
    [{ invoice_number: 'x'.repeat(61) }, 'invoice_number'],
    [{ reminders_paused: 'yes' }, 'reminders_paused'],
    [{ recurrence: { interval: 'daily' } }, 'recurrence'],
  ])('answers 400 for %j and changes nothing', async (body, field) => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    const before = (await biz.get(`/v1/transactions/${d.id}`)).body.data;
    const res = await biz.patch(`/v1/transactions/${d.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    if (field !== undefined) expect(res.body.error.message).toContain(field);
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data).toEqual(before);
    expect(await eventsOf(h, biz.business.id, 'transaction.updated')).toHaveLength(0);
  });

  it('answers 409 for a paid due and an amount below what was paid, 404 for a deleted due', async () => {
    const biz = await h.newBusiness();
    const paid = await newDue(biz);
    await biz.post(`/v1/transactions/${paid.id}/mark-paid`, {});
    expect((await biz.patch(`/v1/transactions/${paid.id}`, { notes: 'x' })).status).toBe(409);

    const deleted = await newDue(biz);
    await biz.delete(`/v1/transactions/${deleted.id}`);
    expect((await biz.patch(`/v1/transactions/${deleted.id}`, { notes: 'x' })).status).toBe(404);

    const part = await newDue(biz);
    await biz.post(`/v1/transactions/${part.id}/payments`, { amount_paise: 4000 });
    const below = await biz.patch(`/v1/transactions/${part.id}`, { amount_paise: 3999 });
    expect(below.status).toBe(409);
    expect(below.body.error).toMatchObject({ code: 'conflict', field: 'amount_paise' });
    expect((await biz.get(`/v1/transactions/${part.id}`)).body.data.amount_paise).toBe(10_000);
  });

  it('settles a part-paid due whose amount is lowered to what was paid', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 4000, utr: 'UTR-PART' });
    const res = await biz.patch(`/v1/transactions/${d.id}`, { amount_paise: 4000 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'paid', balance_paise: 0, utr: 'UTR-PART' });
    const summary = await summaryOf(biz);
    expect(summary.paid).toEqual({ count: 1, paise: 4000 });
    expect(summary.total_outstanding_paise).toBe(0);
    expect(await eventsOf(h, biz.business.id, 'transaction.paid')).toHaveLength(1);
  });

  it("answers 404 for another business's due and for an unknown id", async () => {
    const owner = await h.newBusiness();
    const other = await h.newBusiness();
    const d = await newDue(owner);
    expect((await other.patch(`/v1/transactions/${d.id}`, { notes: 'mine' })).status).toBe(404);
    expect((await owner.patch(`/v1/transactions/${MISSING}`, { notes: 'x' })).status).toBe(404);
    expect((await owner.get(`/v1/transactions/${d.id}`)).body.data.notes).toBeNull();
  });
});

describe('DELETE /v1/transactions/{id}', () => {
  it('removes a due from every read, cancels its reminders, and emits transaction.deleted', async () => {
    const biz = await h.newBusiness();
    const keep = await newDue(biz, { amount_paise: 3000 });
    const d = await newDue(biz, { amount_paise: 5000 });
    h.clock.advance(1000);
    const res = await biz.delete(`/v1/transactions/${d.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });

    expect((await biz.get(`/v1/transactions/${d.id}`)).status).toBe(404);
    const list = await biz.get('/v1/transactions');
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([keep.id]);
    expect(list.body.total).toBe(1);
    expect((await biz.get('/v1/transactions?status=pending')).body.total).toBe(1);
    const summary = await summaryOf(biz);
    expect(summary.pending).toEqual({ count: 1, paise: 3000 });
    const contact = await contactOf(biz, d.contact_id);
    expect(contact).toMatchObject({ outstanding_paise: 3000, total_transactions: 1, pending_count: 1 });
    expect((await biz.get(`/legacy/v1/transactions/${d.id}`)).status).toBe(404);
    expect((await biz.get('/legacy/v1/transactions')).body.data).toHaveLength(1);
    expect((await biz.get(`/legacy/v1/contacts/${d.contact_id}`)).body.outstandingPaise).toBe(3000);
    const reminders = await remindersOf(h, d.id);
    expect(reminders).toHaveLength(4);
    for (const r of reminders) expect(r).toMatchObject({ status: 'cancelled', reason: 'deleted' });
    expect((await biz.post(`/v1/transactions/${d.id}/remind`, {})).status).toBe(404);

    const events = await eventsOf(h, biz.business.id, 'transaction.deleted');
    expect(events).toEqual([
      {
        type: 'transaction.deleted',
        data: expect.objectContaining({ id: d.id, amountPaise: 5000, status: 'pending', dueDate: '2026-12-01' }),
      },
    ]);
  });

  it('lists deleted dues only to an incremental sync that asks for them', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    h.clock.advance(60_000);
    const since = h.clock.now().toISOString();
    await biz.delete(`/v1/transactions/${d.id}`);
    const synced = await biz.get(`/v1/transactions?since=${since}&include_deleted=true`);
    expect(synced.status).toBe(200);
    expect(synced.body.data).toEqual([
      expect.objectContaining({
        id: d.id,
        deleted_at: h.clock.now().toISOString(),
        updated_at: h.clock.now().toISOString(),
      }),
    ]);
    expect(synced.body.total).toBe(1);
    expect((await biz.get(`/v1/transactions?since=${since}`)).body.data).toHaveLength(0);
    expect((await biz.get('/v1/transactions?include_deleted=true')).body.data).toHaveLength(0);
    expect((await biz.get('/v1/transactions?include_deleted=maybe')).status).toBe(400);
  });

  it('answers 409 for a due with any payment, and changes nothing', async () => {
    const biz = await h.newBusiness();
    const part = await newDue(biz);
    await biz.post(`/v1/transactions/${part.id}/payments`, { amount_paise: 100 });
    const paid = await newDue(biz);
    await biz.post(`/v1/transactions/${paid.id}/mark-paid`, {});
    expect((await biz.delete(`/v1/transactions/${part.id}`)).status).toBe(409);
    expect((await biz.delete(`/v1/transactions/${paid.id}`)).status).toBe(409);
    expect((await biz.get(`/v1/transactions/${part.id}`)).status).toBe(200);
    expect(await eventsOf(h, biz.business.id, 'transaction.deleted')).toHaveLength(0);
  });

  it('answers 404 when already deleted, unknown, or of another business', async () => {
    const owner = await h.newBusiness();
    const other = await h.newBusiness();
    const d = await newDue(owner);
    expect((await other.delete(`/v1/transactions/${d.id}`)).status).toBe(404);
    expect((await owner.delete(`/v1/transactions/${MISSING}`)).status).toBe(404);
    expect((await owner.delete(`/v1/transactions/${d.id}`)).status).toBe(200);
    expect((await owner.delete(`/v1/transactions/${d.id}`)).status).toBe(404);
    expect(await eventsOf(h, owner.business.id, 'transaction.deleted')).toHaveLength(1);
  });

  it("answers the deleted due's pay page with 410, as a page", async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz);
    await biz.delete(`/v1/transactions/${d.id}`);
    const path = new URL(d.pay_page_url).pathname;
    const page = await h.request('GET', path);
    expect(page.status).toBe(410);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('No longer payable');
    const claim = await h.request('POST', `${path}/claim`, {
      payload: 'reference=UTR1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(claim.status).toBe(410);
  });
});

describe('GET /openapi.json', () => {
  it('describes PATCH, DELETE and the payments of a due with the Payment schema', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    const due = doc.paths['/v1/transactions/{id}'];
    expect(Object.keys(due)).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
    expect(Object.keys(due.patch.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409']));
    expect(Object.keys(due.delete.responses)).toEqual(expect.arrayContaining(['200', '404', '409']));
    const payments = doc.paths['/v1/transactions/{id}/payments'];
    expect(Object.keys(payments)).toEqual(expect.arrayContaining(['get', 'post']));
    expect(payments.post.requestBody.content['application/json'].schema.required).toEqual(['amount_paise']);
    expect(doc.components.schemas.Payment.properties.source.enum).toEqual([
      'api',
      'claim',
      'gateway',
      'import',
      'chat',
      'dashboard',
      'bank',
      'credit',
    ]);
    expect(Object.keys(doc.components.schemas.Transaction.properties)).toEqual(
      expect.arrayContaining([
        'amount_paid_paise',
        'balance_paise',
        'deleted_at',
        'series_id',
        'recurrence',
        'reminders_paused',
      ]),
    );
  });
});
