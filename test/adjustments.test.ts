import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contactOf, eventsOf, newDue, summaryOf } from './helpers/dues.js';
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

describe('POST /v1/transactions/{id}/adjustments', () => {
  it('lowers the balance without money: amount_adjusted_paise, totals, contact, transaction.updated', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 100_000 });
    h.clock.advance(1000);
    const res = await biz.post(`/v1/transactions/${d.id}/adjustments`, {
      kind: 'tds',
      amount_paise: 2_000,
      reason: '2% TDS',
      reference: 'TDS-Q3',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.adjustment).toEqual({
      id: expect.any(String),
      transaction_id: d.id,
      kind: 'tds',
      amount_paise: 2_000,
      reason: '2% TDS',
      reference: 'TDS-Q3',
      created_at: h.clock.now().toISOString(),
    });
    expect(res.body.data.transaction).toMatchObject({
      status: 'pending',
      amount_paid_paise: 0,
      amount_adjusted_paise: 2_000,
      balance_paise: 98_000,
    });
    expect(await summaryOf(biz)).toMatchObject({
      pending: { count: 1, paise: 98_000 },
      paid_this_month_paise: 0,
      total_outstanding_paise: 98_000,
    });
    expect(await contactOf(biz, d.contact_id)).toMatchObject({ outstanding_paise: 98_000, balance_paise: 98_000 });
    expect((await eventsOf(h, biz.business.id, 'transaction.updated')).map((e) => e.data.id)).toEqual([d.id]);
    const listed = await biz.get(`/v1/transactions/${d.id}/adjustments`);
    expect(listed.body.data).toEqual([res.body.data.adjustment]);
  });

  it('closes a due whose balance reaches 0 (paid), never counted as money received', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 10_000 });
    await biz.post(`/v1/transactions/${d.id}/payments`, { amount_paise: 9_800 });
    const res = await biz.post(`/v1/transactions/${d.id}/adjustments`, { kind: 'write_off', amount_paise: 200 });
    expect(res.status).toBe(201);
    expect(res.body.data.transaction).toMatchObject({ status: 'paid', balance_paise: 0, amount_adjusted_paise: 200 });
    expect(res.body.data.transaction.paid_at).not.toBeNull();
    expect(await summaryOf(biz)).toMatchObject({
      paid: { count: 1, paise: 10_000 },
      paid_this_month_paise: 9_800,
      total_outstanding_paise: 0,
    });
    expect((await eventsOf(h, biz.business.id, 'transaction.paid')).map((e) => e.data.id)).toEqual([d.id]);
    expect((await biz.post(`/v1/transactions/${d.id}/adjustments`, { kind: 'discount', amount_paise: 1 })).status).toBe(
      409,
    );
  });

  it('answers 400 above the balance or for bad input, 404 for deleted, unknown or foreign dues', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 1_000 });
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'tds', amount_paise: 1_001 }, 'amount_paise'],
      [{ kind: 'gift', amount_paise: 10 }, 'kind'],
      [{ kind: 'tds', amount_paise: 0 }, 'amount_paise'],
      [{ kind: 'tds' }, 'amount_paise'],
      [{ kind: 'tds', amount_paise: 10, extra: true }, 'extra'],
      [{ kind: 'tds', amount_paise: 10, reason: 'x'.repeat(201) }, 'reason'],
    ];
    for (const [body, field] of cases) {
      const res = await biz.post(`/v1/transactions/${d.id}/adjustments`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toContain(field);
    }
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data.balance_paise).toBe(1_000);
    expect((await other.post(`/v1/transactions/${d.id}/adjustments`, { kind: 'tds', amount_paise: 1 })).status).toBe(
      404,
    );
    expect((await other.get(`/v1/transactions/${d.id}/adjustments`)).status).toBe(404);
    expect((await biz.post(`/v1/transactions/${MISSING}/adjustments`, { kind: 'tds', amount_paise: 1 })).status).toBe(
      404,
    );
    const gone = await newDue(biz, { amount_paise: 1_000 });
    await biz.delete(`/v1/transactions/${gone.id}`);
    expect((await biz.post(`/v1/transactions/${gone.id}/adjustments`, { kind: 'tds', amount_paise: 1 })).status).toBe(
      404,
    );
  });

  it('keeps PATCH and DELETE consistent with adjustments', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 10_000 });
    await biz.post(`/v1/transactions/${d.id}/adjustments`, { kind: 'credit_note', amount_paise: 3_000 });
    expect((await biz.patch(`/v1/transactions/${d.id}`, { amount_paise: 2_999 })).status).toBe(409);
    expect((await biz.delete(`/v1/transactions/${d.id}`)).status).toBe(409);
    const settled = await biz.patch(`/v1/transactions/${d.id}`, { amount_paise: 3_000 });
    expect(settled.body.data).toMatchObject({ status: 'paid', balance_paise: 0 });
    expect(await contactOf(biz, d.contact_id)).toMatchObject({ outstanding_paise: 0, balance_paise: 0 });
  });

  it("moves the due's updated_at forward even when the clock reads earlier than its last change", async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 10_000 });
    h.clock.set('2026-11-21T06:00:00.000Z');
    const res = await biz.post(`/v1/transactions/${d.id}/adjustments`, { kind: 'tds', amount_paise: 1_000 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Date.parse(res.body.data.transaction.updated_at)).toBe(Date.parse(d.updated_at) + 1);
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data.updated_at).toBe(res.body.data.transaction.updated_at);
  });
});
