import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * Issue 18: an incremental sync that matches most of a business's dues (over 1000: the list then
 * walks the due-date order and counts the dues it does not match) answers the same rows, order
 * and totals as one that matches few.
 */

const NOW = '2026-11-21T06:30:00.000Z';
const MANY = 1010;

let h: Harness;
let biz: TestBusiness;
let ids: string[];
let before: string;
let between: string;
beforeAll(async () => {
  h = await startHarness({ now: NOW, reads: { readThreads: 2 } });
  biz = await h.newBusiness();
  before = h.clock.now().toISOString();
  h.clock.advance(1000);
  ids = [];
  for (let i = 0; i < MANY; i++) {
    const res = await biz.post('/v1/transactions', {
      amount_paise: 100 + i,
      // far-future dates: no sweep moves them; a few repeated dates exercise the tie-breaks
      due_date: `2099-0${1 + (i % 9)}-1${i % 10}`,
      contact_name: `Sync Buyer ${i % 7}`,
    });
    expect(res.status).toBe(201);
    ids.push(res.body.data.id);
    if (i % 50 === 0) h.clock.advance(1000);
  }
  h.clock.advance(60_000);
  between = h.clock.now().toISOString();
  h.clock.advance(1000);
  // After the checkpoint: two paid, one changed, one deleted.
  expect((await biz.post(`/v1/transactions/${ids[5]}/mark-paid`, {})).status).toBe(200);
  expect((await biz.post(`/v1/transactions/${ids[600]}/mark-paid`, {})).status).toBe(200);
  expect((await biz.patch(`/v1/transactions/${ids[7]}`, { notes: 'changed' })).status).toBe(200);
  expect((await biz.delete(`/v1/transactions/${ids[9]}`)).status).toBe(200);
}, 120_000);
afterAll(() => h.close());

type Row = { id: string; due_date: string; created_at: string; status: string; deleted_at: string | null };

/** Every row of a list, walked by cursor, with the first page's total. */
async function all(query: string): Promise<{ rows: Row[]; total: number }> {
  const first = await biz.get(`/v1/transactions?${query}&limit=200`);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const rows: Row[] = [...first.body.data];
  let page = first.body;
  for (let n = 0; page.hasMore; n++) {
    expect(n, 'the walk ends').toBeLessThan(20);
    page = (await biz.get(`/v1/transactions?${query}&limit=200&starting_after=${rows[rows.length - 1]?.id}`)).body;
    expect(page.total).toBe(first.body.total);
    rows.push(...page.data);
  }
  return { rows, total: first.body.total };
}

function listOrder(a: Row, b: Row) {
  return b.due_date.localeCompare(a.due_date) || b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);
}

describe('GET /v1/transactions?since matching most dues', () => {
  it('lists every due changed since, in the list order, with the right total', async () => {
    const { rows, total } = await all(`since=${encodeURIComponent(before)}`);
    expect(total).toBe(MANY - 1);
    expect(rows).toHaveLength(MANY - 1);
    expect(rows.map((r) => r.id)).not.toContain(ids[9]);
    expect([...rows].sort(listOrder).map((r) => r.id)).toEqual(rows.map((r) => r.id));
    const plain = await all('status=outstanding');
    expect(plain.total).toBe(MANY - 3);
  });

  it('counts each status the same way', async () => {
    const since = encodeURIComponent(before);
    const paid = await all(`since=${since}&status=paid`);
    expect(paid.total).toBe(2);
    expect(paid.rows.map((r) => r.id).sort()).toEqual([ids[5], ids[600]].sort());
    const outstanding = await all(`since=${since}&status=outstanding`);
    expect(outstanding.total).toBe(MANY - 3);
    expect(outstanding.rows).toHaveLength(MANY - 3);
    const pending = await all(`since=${since}&status=pending`);
    expect(pending.total).toBe(MANY - 3);
  });

  it('pages by offset the same as by cursor', async () => {
    const since = encodeURIComponent(before);
    const { rows } = await all(`since=${since}`);
    const deep = await biz.get(`/v1/transactions?since=${since}&limit=7&offset=900`);
    expect(deep.body).toMatchObject({ total: MANY - 1, offset: 900, hasMore: true });
    expect(deep.body.data.map((r: Row) => r.id)).toEqual(rows.slice(900, 907).map((r) => r.id));
    const plainDeep = await biz.get('/v1/transactions?limit=5&offset=1000');
    expect(plainDeep.body.data.map((r: Row) => r.id)).toEqual(rows.slice(1000, 1005).map((r) => r.id));
  });

  it('lists the few changed since a recent instant, deleted ones when asked', async () => {
    const since = encodeURIComponent(between);
    const few = await all(`since=${since}`);
    expect(few.total).toBe(3);
    expect(few.rows.map((r) => r.id).sort()).toEqual([ids[5], ids[600], ids[7]].sort());
    const withDeleted = await all(`since=${since}&include_deleted=true`);
    expect(withDeleted.total).toBe(4);
    expect(withDeleted.rows.find((r) => r.id === ids[9])?.deleted_at).not.toBeNull();
    const manyWithDeleted = await all(`since=${encodeURIComponent(before)}&include_deleted=true`);
    expect(manyWithDeleted.total).toBe(MANY);
  });
});
