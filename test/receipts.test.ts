import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contactOf, eventsOf, newDue, summaryOf } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());
beforeEach(() => h.clock.set(NOW));

/** Three dues of one contact: oldest by due date first (the third created first). */
async function threeDues(biz: TestBusiness, name = 'Ravi Traders') {
  const c = await newDue(biz, { contact_name: name, amount_paise: 30_000, due_date: '2026-12-10' });
  h.clock.advance(1000);
  const a = await newDue(biz, { contact_name: name, amount_paise: 10_000, due_date: '2026-11-01' });
  h.clock.advance(1000);
  const b = await newDue(biz, { contact_name: name, amount_paise: 20_000, due_date: '2026-11-01' });
  h.clock.advance(1000);
  return { a, b, c, contactId: a.contact_id };
}

describe('POST /v1/contacts/{id}/payments', () => {
  it('settles the open dues oldest first (due date, then creation) and keeps the rest as credit', async () => {
    const biz = await h.newBusiness();
    const { a, b, c, contactId } = await threeDues(biz);
    const res = await biz.post(`/v1/contacts/${contactId}/payments`, {
      amount_paise: 25_000,
      utr: 'UTR-25',
      payment_method: 'upi',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { receipt, transactions, contact } = res.body.data;
    expect(receipt).toEqual({
      id: expect.any(String),
      contact_id: contactId,
      amount_paise: 25_000,
      applied_paise: 25_000,
      credit_paise: 0,
      utr: 'UTR-25',
      payment_method: 'upi',
      source: 'api',
      received_on: '2026-11-21',
      created_at: h.clock.now().toISOString(),
      reversed_at: null,
      allocations: [
        { transaction_id: a.id, amount_paise: 10_000 },
        { transaction_id: b.id, amount_paise: 15_000 },
      ],
    });
    expect(
      transactions.map((t: { id: string; status: string; balance_paise: number }) => [t.id, t.status, t.balance_paise]),
    ).toEqual([
      [a.id, 'paid', 0],
      [b.id, 'overdue', 5_000],
    ]);
    expect(contact).toMatchObject({ id: contactId, outstanding_paise: 35_000, credit_paise: 0, balance_paise: 35_000 });
    expect((await biz.get(`/v1/transactions/${c.id}`)).body.data.balance_paise).toBe(30_000);
    expect(await summaryOf(biz)).toMatchObject({ paid_this_month_paise: 25_000, total_outstanding_paise: 35_000 });
    const paid = await eventsOf(h, biz.business.id, 'transaction.paid');
    expect(paid.map((e) => e.data.id)).toEqual([a.id]);
    const updated = await eventsOf(h, biz.business.id, 'transaction.updated');
    expect(updated.map((e) => e.data.id)).toEqual([b.id]);
    // Each due touched got a payment with the receipt's utr and method.
    const payments = (await biz.get(`/v1/transactions/${b.id}/payments`)).body.data;
    expect(payments).toEqual([
      expect.objectContaining({ amount_paise: 15_000, utr: 'UTR-25', payment_method: 'upi', source: 'api' }),
    ]);
  });

  it('applies the listed allocations first, then oldest first, then credit', async () => {
    const biz = await h.newBusiness();
    const { a, b, c, contactId } = await threeDues(biz);
    const res = await biz.post(`/v1/contacts/${contactId}/payments`, {
      amount_paise: 70_000,
      allocations: [{ transaction_id: c.id, amount_paise: 30_000 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.receipt).toMatchObject({
      applied_paise: 60_000,
      credit_paise: 10_000,
      allocations: [
        { transaction_id: c.id, amount_paise: 30_000 },
        { transaction_id: a.id, amount_paise: 10_000 },
        { transaction_id: b.id, amount_paise: 20_000 },
      ],
    });
    expect(res.body.data.contact).toMatchObject({ outstanding_paise: 0, credit_paise: 10_000, balance_paise: -10_000 });
    expect(await summaryOf(biz)).toMatchObject({ paid_this_month_paise: 70_000, credit_paise: 10_000 });
    const listed = (await biz.get('/v1/contacts')).body.data.find((x: { id: string }) => x.id === contactId);
    expect(listed).toMatchObject({ credit_paise: 10_000, balance_paise: -10_000 });
  });

  it('keeps a part allocation and lets the oldest-first rest top the same due up', async () => {
    const biz = await h.newBusiness();
    const { a, b, contactId } = await threeDues(biz);
    const res = await biz.post(`/v1/contacts/${contactId}/payments`, {
      amount_paise: 12_000,
      allocations: [{ transaction_id: b.id, amount_paise: 5_000 }],
    });
    expect(res.body.data.receipt.allocations).toEqual([
      { transaction_id: b.id, amount_paise: 5_000 },
      { transaction_id: a.id, amount_paise: 7_000 },
    ]);
  });

  it.each([
    [
      'more than the due owes',
      (d: { a: { id: string } }) => [{ transaction_id: d.a.id, amount_paise: 10_001 }],
      20_000,
    ],
    ['more than the receipt', (d: { a: { id: string } }) => [{ transaction_id: d.a.id, amount_paise: 10_000 }], 9_000],
    [
      'the same due twice',
      (d: { a: { id: string } }) => [
        { transaction_id: d.a.id, amount_paise: 1_000 },
        { transaction_id: d.a.id, amount_paise: 1_000 },
      ],
      9_000,
    ],
    ['an unknown due', () => [{ transaction_id: MISSING, amount_paise: 1_000 }], 9_000],
  ])('answers 400 naming allocations for %s, and changes nothing', async (_name, allocations, amount) => {
    const biz = await h.newBusiness();
    const d = await threeDues(biz);
    const before = await summaryOf(biz);
    const res = await biz.post(`/v1/contacts/${d.contactId}/payments`, {
      amount_paise: amount,
      allocations: allocations(d),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'allocations' });
    expect(await summaryOf(biz)).toEqual(before);
    expect((await biz.get(`/v1/contacts/${d.contactId}/payments`)).body.data).toEqual([]);
  });

  it('refuses a due of another contact, or a paid one, naming allocations', async () => {
    const biz = await h.newBusiness();
    const d = await threeDues(biz);
    const other = await newDue(biz, { contact_name: 'Someone Else', amount_paise: 5_000 });
    const res = await biz.post(`/v1/contacts/${d.contactId}/payments`, {
      amount_paise: 5_000,
      allocations: [{ transaction_id: other.id, amount_paise: 5_000 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('allocations');
    await biz.post(`/v1/transactions/${d.a.id}/mark-paid`, {});
    const paid = await biz.post(`/v1/contacts/${d.contactId}/payments`, {
      amount_paise: 5_000,
      allocations: [{ transaction_id: d.a.id, amount_paise: 5_000 }],
    });
    expect(paid.status).toBe(400);
    expect(paid.body.error.field).toBe('allocations');
  });

  it.each([
    [{ amount_paise: 0 }, 'amount_paise'],
    [{ amount_paise: 100, received_on: '2026-02-30' }, 'received_on'],
    [{ amount_paise: 100, payment_method: 'gold' }, 'payment_method'],
    [{ amount_paise: 100, surprise: 1 }, 'surprise'],
  ])('answers 400 for bad input %j', async (body, field) => {
    const biz = await h.newBusiness();
    const d = await threeDues(biz);
    const res = await biz.post(`/v1/contacts/${d.contactId}/payments`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(field);
  });

  it("answers 404 for an unknown contact or another business's", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const d = await threeDues(other);
    expect((await biz.post(`/v1/contacts/${MISSING}/payments`, { amount_paise: 100 })).status).toBe(404);
    expect((await biz.post(`/v1/contacts/${d.contactId}/payments`, { amount_paise: 100 })).status).toBe(404);
    expect((await biz.get(`/v1/contacts/${d.contactId}/payments`)).status).toBe(404);
    const r = await other.post(`/v1/contacts/${d.contactId}/payments`, { amount_paise: 100 });
    expect((await biz.get(`/v1/payments/${r.body.data.receipt.id}`)).status).toBe(404);
    expect((await biz.post(`/v1/payments/${r.body.data.receipt.id}/reverse`, { reason: 'x' })).status).toBe(404);
  });

  it('records one receipt for one Idempotency-Key, even sent twice at once', async () => {
    const biz = await h.newBusiness();
    const d = await threeDues(biz);
    const send = () =>
      biz.post(
        `/v1/contacts/${d.contactId}/payments`,
        { amount_paise: 5_000 },
        { headers: { 'Idempotency-Key': 'receipt-1' } },
      );
    const [one, two] = await Promise.all([send(), send()]);
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(two.body.data.receipt.id).toBe(one.body.data.receipt.id);
    const list = (await biz.get(`/v1/contacts/${d.contactId}/payments`)).body;
    expect(list.total).toBe(1);
    const changed = await biz.post(
      `/v1/contacts/${d.contactId}/payments`,
      { amount_paise: 6_000 },
      { headers: { 'Idempotency-Key': 'receipt-1' } },
    );
    expect(changed.status).toBe(422);
  });

  it('never over-applies: receipts and a reversal at once on one contact', async () => {
    const biz = await h.newBusiness();
    const d = await threeDues(biz);
    const first = await biz.post(`/v1/contacts/${d.contactId}/payments`, { amount_paise: 10_000 });
    const results = await Promise.all([
      biz.post(`/v1/contacts/${d.contactId}/payments`, { amount_paise: 40_000 }),
      biz.post(`/v1/contacts/${d.contactId}/payments`, { amount_paise: 40_000 }),
      biz.post(`/v1/payments/${first.body.data.receipt.id}/reverse`, { reason: 'entered twice' }),
    ]);
    expect(results.map((r) => r.status)).toEqual([201, 201, 200]);
    // 60,000 owed, 80,000 received and kept: 20,000 credit, nothing open.
    const contact = await contactOf(biz, d.contactId);
    expect(contact).toMatchObject({ outstanding_paise: 0, credit_paise: 20_000, balance_paise: -20_000 });
    for (const due of [d.a, d.b, d.c]) {
      const t = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
      expect(t.amount_paid_paise).toBe(t.amount_paise);
    }
    expect(await summaryOf(biz)).toMatchObject({
      total_outstanding_paise: 0,
      credit_paise: 20_000,
      paid_this_month_paise: 80_000,
    });
  });
});

describe('credit', () => {
  it('settles a new due of a contact with credit at once, oldest receipt first, not as new money', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Advance Buyer', amount_paise: 1_000 });
    const one = await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 4_000, utr: 'ADV-1' });
    h.clock.advance(1000);
    const two = await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 5_000, utr: 'ADV-2' });
    expect((await summaryOf(biz)).credit_paise).toBe(8_000);
    h.clock.advance(1000);
    const created = await biz.post('/v1/transactions', {
      contact_id: due.contact_id,
      amount_paise: 6_000,
      due_date: '2026-12-20',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ status: 'paid', amount_paid_paise: 6_000, balance_paise: 0 });
    const payments = (await biz.get(`/v1/transactions/${created.body.data.id}/payments`)).body.data;
    expect(
      payments.map((p: { amount_paise: number; source: string; utr: string }) => [p.amount_paise, p.source, p.utr]),
    ).toEqual([
      [3_000, 'credit', 'ADV-1'],
      [3_000, 'credit', 'ADV-2'],
    ]);
    expect((await biz.get(`/v1/payments/${one.body.data.receipt.id}`)).body.data).toMatchObject({
      applied_paise: 4_000,
      credit_paise: 0,
    });
    expect((await biz.get(`/v1/payments/${two.body.data.receipt.id}`)).body.data).toMatchObject({
      applied_paise: 3_000,
      credit_paise: 2_000,
      allocations: [{ transaction_id: created.body.data.id, amount_paise: 3_000 }],
    });
    expect(await summaryOf(biz)).toMatchObject({ credit_paise: 2_000, paid_this_month_paise: 9_000 });
    expect(await contactOf(biz, due.contact_id)).toMatchObject({
      outstanding_paise: 0,
      credit_paise: 2_000,
      balance_paise: -2_000,
    });
    const paidEvents = await eventsOf(h, biz.business.id, 'transaction.paid');
    expect(paidEvents.map((e) => e.data.id)).toContain(created.body.data.id);
  });

  it('settles a new due by name, and a bulk import, from credit as far as it goes', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Import Buyer', amount_paise: 1_000 });
    await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 3_000 });
    const byName = await newDue(biz, { contact_name: 'import buyer', amount_paise: 1_500 });
    expect((await biz.get(`/v1/transactions/${byName.id}`)).body.data.status).toBe('paid');
    const imported = await biz.post('/v1/transactions/import', {
      rows: [
        { contact_name: 'Import Buyer', amount_paise: 1_000, due_date: '2026-12-01' },
        { contact_name: 'Other Buyer', amount_paise: 1_000, due_date: '2026-12-01' },
      ],
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const [first, second] = imported.body.data.ids;
    expect((await biz.get(`/v1/transactions/${first}`)).body.data).toMatchObject({
      status: 'pending',
      balance_paise: 500,
    });
    expect((await biz.get(`/v1/transactions/${second}`)).body.data.balance_paise).toBe(1_000);
    expect(await contactOf(biz, due.contact_id)).toMatchObject({
      outstanding_paise: 500,
      credit_paise: 0,
      balance_paise: 500,
    });
    expect(await summaryOf(biz)).toMatchObject({ credit_paise: 0, total_outstanding_paise: 1_500 });
  });
});

describe('GET /v1/contacts/{id}/payments and /v1/payments/{id}', () => {
  it('lists receipts newest first, every way of recording money a receipt of one allocation', async () => {
    const biz = await h.newBusiness();
    const d = await threeDues(biz);
    const one = await biz.post(`/v1/transactions/${d.a.id}/payments`, { amount_paise: 4_000 });
    h.clock.advance(1000);
    await biz.post(`/v1/transactions/${d.b.id}/mark-paid`, { utr: 'MP-1' });
    h.clock.advance(1000);
    await biz.post(`/v1/contacts/${d.contactId}/payments`, { amount_paise: 1_000 });
    const page = (await biz.get(`/v1/contacts/${d.contactId}/payments?limit=2`)).body;
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(page.data.map((r: { amount_paise: number }) => r.amount_paise)).toEqual([1_000, 20_000]);
    expect(page.data[1]).toMatchObject({
      utr: 'MP-1',
      allocations: [{ transaction_id: d.b.id, amount_paise: 20_000 }],
    });
    const next = (await biz.get(`/v1/contacts/${d.contactId}/payments?starting_after=${page.data[1].id}`)).body;
    expect(next.data).toHaveLength(1);
    expect(next.data[0]).toMatchObject({
      amount_paise: 4_000,
      source: 'api',
      allocations: [{ transaction_id: d.a.id, amount_paise: 4_000 }],
    });
    // A due's payment id reads as the receipt holding it.
    expect(one.body.data.payment.id).toBeDefined();
    const bad = await biz.get(`/v1/contacts/${d.contactId}/payments?starting_after=${MISSING}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('starting_after');
    expect((await biz.get(`/v1/payments/${MISSING}`)).status).toBe(404);
  });
});

describe('POST /v1/payments/{id}/reverse', () => {
  it('takes the payments and credit back, reopens the dues, and the figures follow', async () => {
    const biz = await h.newBusiness();
    const d = await threeDues(biz);
    const before = await summaryOf(biz);
    const r = await biz.post(`/v1/contacts/${d.contactId}/payments`, { amount_paise: 65_000 });
    expect(r.body.data.receipt.credit_paise).toBe(5_000);
    h.clock.advance(60_000);
    const rev = await biz.post(`/v1/payments/${r.body.data.receipt.id}/reverse`, { reason: 'cheque bounced' });
    expect(rev.status, JSON.stringify(rev.body)).toBe(200);
    expect(rev.body.data).toMatchObject({
      id: r.body.data.receipt.id,
      reversed_at: h.clock.now().toISOString(),
      credit_paise: 0,
    });
    for (const due of [d.a, d.b, d.c]) {
      const t = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
      expect(t).toMatchObject({ amount_paid_paise: 0, paid_at: null });
      expect(t.status).not.toBe('paid');
      expect((await biz.get(`/v1/transactions/${due.id}/payments`)).body.data).toEqual([]);
    }
    expect(await summaryOf(biz)).toEqual(before);
    expect(await contactOf(biz, d.contactId)).toMatchObject({
      outstanding_paise: 60_000,
      credit_paise: 0,
      balance_paise: 60_000,
    });
    const aging = (await biz.get('/v1/aging')).body.data;
    expect(aging.d1_30).toEqual({ count: 2, paise: 30_000 });
    expect(aging.current).toEqual({ count: 1, paise: 30_000 });
    const updated = await eventsOf(h, biz.business.id, 'transaction.updated');
    expect(
      updated
        .slice(-3)
        .map((e) => e.data.id)
        .sort(),
    ).toEqual([d.a.id, d.b.id, d.c.id].sort());
    // Reversed receipts stay listed.
    expect((await biz.get(`/v1/contacts/${d.contactId}/payments`)).body.data[0].reversed_at).not.toBeNull();
    const again = await biz.post(`/v1/payments/${r.body.data.receipt.id}/reverse`, { reason: 'again' });
    expect(again.status).toBe(409);
  });

  it('answers 409 naming the due when a later due used its credit', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Credit Buyer', amount_paise: 1_000 });
    const r = await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 3_000 });
    const later = await newDue(biz, { contact_id: due.contact_id, contact_name: undefined, amount_paise: 500 });
    const res = await biz.post(`/v1/payments/${r.body.data.receipt.id}/reverse`, { reason: 'mistake' });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain(later.id);
  });

  it.each([[{}], [{ reason: '' }], [{ reason: 'x'.repeat(201) }], [{ reason: 'ok', extra: 1 }]])(
    'answers 400 for %j',
    async (body) => {
      const biz = await h.newBusiness();
      const due = await newDue(biz, { amount_paise: 1_000 });
      const r = await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 500 });
      const res = await biz.post(`/v1/payments/${r.body.data.receipt.id}/reverse`, body);
      expect(res.status).toBe(400);
      expect((await biz.get(`/v1/payments/${r.body.data.receipt.id}`)).body.data.reversed_at).toBeNull();
    },
  );
});
