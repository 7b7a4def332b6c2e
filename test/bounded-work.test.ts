import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/** No request does unbounded work: series from the far past are refused, and no request writes more than 10,000 dues. */

// 2026-11-21 12:00 in Kolkata; 366 days before is 2025-11-20.
const NOW = '2026-11-21T06:30:00.000Z';
const OLDEST = '2025-11-20';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());
beforeEach(() => h.clock.set(NOW));

async function total(biz: TestBusiness): Promise<number> {
  const res = await biz.get('/v1/transactions?limit=1');
  expect(res.status).toBe(200);
  return res.body.total;
}

const weekly = { interval: 'weekly', until: null };

describe('a repeating due dated more than 366 days ago', () => {
  it('POST /v1/transactions answers 400 naming due_date and writes nothing', async () => {
    const biz = await h.newBusiness();
    for (const due_date of ['1900-01-01', '2025-11-19']) {
      const res = await biz.post('/v1/transactions', {
        amount_paise: 100,
        due_date,
        contact_name: 'Old Series',
        recurrence: weekly,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'due_date' });
      expect(res.body.error.message).toContain(OLDEST);
    }
    expect(await total(biz)).toBe(0);
  });

  it('takes a series starting exactly 366 days ago and catches it up (53 weekly dues, and the next one ahead)', async () => {
    const biz = await h.newBusiness();
    await newDue(biz, { due_date: OLDEST, recurrence: weekly });
    expect(await total(biz)).toBe(54);
  });

  it('takes a due without recurrence from the far past', async () => {
    const biz = await h.newBusiness();
    await newDue(biz, { due_date: '1900-01-01' });
    expect(await total(biz)).toBe(1);
  });

  it('PATCH adding a recurrence to such a due answers 400 naming due_date, nothing changed', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '1900-01-01' });
    const res = await biz.patch(`/v1/transactions/${due.id}`, { recurrence: weekly });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.field).toBe('due_date');
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.recurrence).toBeNull();
    expect(await total(biz)).toBe(1);
  });

  it('PATCH moving a repeating due to such a date answers 400 naming due_date, nothing changed', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-12-01', recurrence: weekly });
    const res = await biz.patch(`/v1/transactions/${due.id}`, { due_date: '1900-01-01' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.field).toBe('due_date');
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.due_date).toBe('2026-12-01T00:00:00.000Z');
    expect(await total(biz)).toBe(1);
  });

  it('PATCH ending a series on such a due is taken', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-12-01', recurrence: weekly });
    const res = await biz.patch(`/v1/transactions/${due.id}`, { due_date: '1900-01-01', recurrence: null });
    expect(res.status, res.text).toBe(200);
  });

  it('POST /v1/transactions/import (JSON) answers 400 naming the row and due_date, writes nothing', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/transactions/import', {
      rows: [
        { contact_name: 'Fine', amount_paise: 100, due_date: '2026-12-01' },
        { contact_name: 'Old Series', amount_paise: 100, due_date: '1900-01-01', recurrence: weekly },
      ],
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.rows).toEqual([{ row: 2, field: 'due_date', message: expect.stringContaining(OLDEST) }]);
    expect(await total(biz)).toBe(0);
  });
});

describe('one request writes at most 10,000 dues', () => {
  it("an import's rows and its series' catch-up stop at 10,000; the recurrence worker goes on later", async () => {
    const biz = await h.newBusiness();
    // 200 weekly series from 366 days ago would be 200 x 54 = 10,800 dues at once.
    const rows = Array.from({ length: 200 }, (_, i) => ({
      contact_name: `Series ${i}`,
      amount_paise: 100,
      due_date: OLDEST,
      recurrence: weekly,
    }));
    const res = await biz.post('/v1/transactions/import', { rows });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.created).toBe(200);
    expect(await total(biz)).toBe(10_000);
    // The series cut short carry on with the worker, in transactions of their own.
    for (let round = 0; round < 20 && (await h.services.transactions.repeatArrived()) > 0; round++) {}
    expect(await total(biz)).toBe(10_800);
  }, 120_000);
});

describe('POST /v1/transactions/import (JSON) with rows that are not objects', () => {
  it('answers 400 naming each such row, and writes nothing', async () => {
    const biz = await h.newBusiness();
    for (const bad of [null, 7, 'text', [1], true]) {
      const res = await biz.post('/v1/transactions/import', {
        rows: [{ contact_name: 'Fine', amount_paise: 100, due_date: '2026-12-01' }, bad],
      });
      expect(res.status, `${JSON.stringify(bad)}: ${res.text}`).toBe(400);
      expect(res.body.error.rows).toEqual([{ row: 2, field: 'row', message: 'each row must be a JSON object' }]);
    }
    expect(await total(biz)).toBe(0);
  });
});
