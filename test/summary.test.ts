import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

async function due(biz: TestBusiness, dueDate: string, amount: number, name = 'Summary Buyer') {
  const res = await biz.post('/v1/transactions', { amount_paise: amount, due_date: dueDate, contact_name: name });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

describe('GET /v1/summary', () => {
  it('is all zeros for a new business, in its currency', async () => {
    const biz = await h.newBusiness();
    const res = await biz.get('/v1/summary');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        currency: 'INR',
        overdue: { count: 0, paise: 0 },
        pending: { count: 0, paise: 0 },
        paid: { count: 0, paise: 0 },
        paid_this_month_paise: 0,
        total_outstanding_paise: 0,
        contact_count: 0,
        credit_paise: 0,
      },
    });
  });

  it('counts pending, overdue (past due date) and paid, outstanding and contacts', async () => {
    const biz = await h.newBusiness();
    await due(biz, '2026-12-01', 1000, 'A One');
    await due(biz, '2026-11-21', 2000, 'A One');
    await due(biz, '2026-11-20', 4000, 'B Two');
    const paid = await due(biz, '2026-10-01', 8000, 'C Three');
    await biz.post(`/v1/transactions/${paid}/mark-paid`, {});
    await biz.post('/v1/contacts', { name: 'D Four' });
    const res = await biz.get('/v1/summary');
    expect(res.body.data).toEqual({
      currency: 'INR',
      pending: { count: 2, paise: 3000 },
      overdue: { count: 1, paise: 4000 },
      paid: { count: 1, paise: 8000 },
      paid_this_month_paise: 8000,
      total_outstanding_paise: 7000,
      contact_count: 4,
      credit_paise: 0,
    });
  });

  it('moves a due from pending to overdue at local midnight without any write', async () => {
    const biz = await h.newBusiness();
    await due(biz, '2026-11-21', 500);
    expect((await biz.get('/v1/summary')).body.data.pending).toEqual({ count: 1, paise: 500 });
    // 23:59 in Kolkata is still the 21st; 00:00 is the 22nd.
    h.clock.set('2026-11-21T18:29:00.000Z');
    expect((await biz.get('/v1/summary')).body.data.overdue).toEqual({ count: 0, paise: 0 });
    h.clock.set('2026-11-21T18:30:00.000Z');
    const after = (await biz.get('/v1/summary')).body.data;
    expect(after.overdue).toEqual({ count: 1, paise: 500 });
    expect(after.pending).toEqual({ count: 0, paise: 0 });
    expect(after.total_outstanding_paise).toBe(500);
    h.clock.set(NOW);
  });

  it('uses the business time zone for today and for the month', async () => {
    const biz = await h.newBusiness({ timezone: 'America/New_York', country: 'US', phone: '+1 415 555 0102' });
    // 06:30 UTC on the 21st is 01:30 on the 21st in New York; a due of the 20th is overdue there.
    await due(biz, '2026-11-20', 100);
    await due(biz, '2026-11-21', 200);
    const s = (await biz.get('/v1/summary')).body.data;
    expect(s.overdue).toEqual({ count: 1, paise: 100 });
    expect(s.pending).toEqual({ count: 1, paise: 200 });
  });

  it('counts paid_this_month_paise from the first day of the local month', async () => {
    const biz = await h.newBusiness();
    const a = await due(biz, '2026-10-15', 300);
    const b = await due(biz, '2026-10-16', 700);
    h.clock.set('2026-10-31T18:00:00.000Z'); // 23:30 on 31 Oct in Kolkata
    await biz.post(`/v1/transactions/${a}/mark-paid`, {});
    h.clock.set('2026-10-31T18:31:00.000Z'); // 00:01 on 1 Nov in Kolkata
    await biz.post(`/v1/transactions/${b}/mark-paid`, {});
    h.clock.set(NOW);
    const s = (await biz.get('/v1/summary')).body.data;
    expect(s.paid).toEqual({ count: 2, paise: 1000 });
    expect(s.paid_this_month_paise).toBe(700);
    h.clock.set('2026-12-01T00:00:00.000Z');
    expect((await biz.get('/v1/summary')).body.data.paid_this_month_paise).toBe(0);
    h.clock.set(NOW);
  });

  it('shows each business only its own totals', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    await due(a, '2026-12-01', 999);
    expect((await b.get('/v1/summary')).body.data.pending).toEqual({ count: 0, paise: 0 });
    expect((await b.get('/v1/summary')).body.data.contact_count).toBe(0);
  });

  it('agrees with the dues list whatever happened to them', async () => {
    const biz = await h.newBusiness();
    const ids: string[] = [];
    const dates = ['2026-11-01', '2026-11-15', '2026-11-21', '2026-11-22', '2026-12-31', '2027-01-05'];
    for (const [i, d] of dates.entries()) ids.push(await due(biz, d, 100 * (i + 1), `Buyer ${i % 3}`));
    await biz.post(`/v1/transactions/${ids[0]}/mark-paid`, {});
    await biz.post(`/v1/transactions/${ids[3]}/mark-paid`, {});
    const s = (await biz.get('/v1/summary')).body.data;
    for (const status of ['pending', 'overdue', 'paid'] as const) {
      const list = (await biz.get(`/v1/transactions?status=${status}&limit=200`)).body;
      const paise = list.data.reduce((sum: number, t: { amount_paise: number }) => sum + t.amount_paise, 0);
      expect({ count: list.total, paise }, status).toEqual(s[status]);
    }
    const outstanding = (await biz.get('/v1/transactions?status=outstanding')).body;
    expect(outstanding.data.reduce((sum: number, t: { amount_paise: number }) => sum + t.amount_paise, 0)).toBe(
      s.total_outstanding_paise,
    );
  });
});
