import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overdueSweeper } from '../src/workers/overdue-sweeper.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

// The sweeper is global (every business in the store), so this file lives in the year 2000:
// tests of other files sharing the PostgreSQL database never have dues that old.
const NOW = '2000-06-15T06:30:00.000Z'; // 12:00 in Kolkata
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

const signal = new AbortController().signal;

async function due(biz: TestBusiness, dueDate: string, amount = 100, name = 'Sweep Buyer') {
  const res = await biz.post('/v1/transactions', { amount_paise: amount, due_date: dueDate, contact_name: name });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; updated_at: string };
}

async function stored(id: string) {
  return h.store.db
    .selectFrom('transactions')
    .select(['status', 'updated_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** The stored running totals, summed over the business's rows (one per shard on PostgreSQL). */
async function storedTotals(businessId: string) {
  const columns = ['pending_count', 'pending_paise', 'overdue_count', 'overdue_paise', 'paid_count'] as const;
  const rows = await h.store.db
    .selectFrom('business_totals')
    .select(columns)
    .where('business_id', '=', businessId)
    .execute();
  return Object.fromEntries(columns.map((c) => [c, rows.reduce((sum, r) => sum + Number(r[c]), 0)]));
}

async function expectSummaryMatchesList(biz: TestBusiness) {
  const s = (await biz.get('/v1/summary')).body.data;
  for (const status of ['pending', 'overdue', 'paid'] as const) {
    const list = (await biz.get(`/v1/transactions?status=${status}&limit=200`)).body;
    const paise = list.data.reduce((sum: number, t: { amount_paise: number }) => sum + t.amount_paise, 0);
    expect({ count: list.data.length, paise }, status).toEqual(s[status]);
    expect(list.total, status).toBe(list.data.length);
  }
}

describe('overdue sweeper', () => {
  it("never moves a due's updated_at backwards (a change stamped by a clock ahead of the sweeper's)", async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, '2000-06-20');
    // Another process, its clock ahead, changed the due's notes (its stored status stays pending).
    h.clock.set('2000-06-25T06:30:00.000Z');
    expect((await biz.patch(`/v1/transactions/${d.id}`, { notes: 'ahead' })).status).toBe(200);
    h.clock.set('2000-06-21T06:30:00.000Z');
    await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(signal);
    expect(await stored(d.id)).toEqual({ status: 'overdue', updated_at: '2000-06-25T06:30:00.001Z' });
    h.clock.set(NOW);
  });

  it('moves stored pending dues past their date to overdue, keeping the summary exact', async () => {
    const biz = await h.newBusiness();
    const past = await due(biz, '2000-06-10', 300);
    const yesterday = await due(biz, '2000-06-14', 500);
    const today = await due(biz, '2000-06-15', 700);
    const summaryBefore = (await biz.get('/v1/summary')).body;
    h.clock.advance(60_000);
    const job = overdueSweeper({ db: h.store.db, clock: h.clock });
    expect(await job.runOnce(signal)).toBeGreaterThanOrEqual(2);
    expect(await stored(past.id)).toEqual({ status: 'overdue', updated_at: h.clock.now().toISOString() });
    expect((await stored(yesterday.id)).status).toBe('overdue');
    expect(await stored(today.id)).toEqual({ status: 'pending', updated_at: today.updated_at });
    expect((await biz.get('/v1/summary')).body).toEqual(summaryBefore);
    expect(await storedTotals(biz.business.id)).toMatchObject({
      pending_count: 1,
      pending_paise: 700,
      overdue_count: 2,
      overdue_paise: 800,
    });
    await expectSummaryMatchesList(biz);
    // A second run has nothing left to do for this business.
    await job.runOnce(signal);
    expect((await stored(today.id)).status).toBe('pending');
  });

  it('surfaces the swept rows to incremental sync', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, '2000-06-01');
    h.clock.advance(120_000);
    const checkpoint = h.clock.now().toISOString();
    await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(signal);
    const res = await biz.get(`/v1/transactions?since=${encodeURIComponent(checkpoint)}`);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([d.id]);
    expect(res.body.data[0].status).toBe('overdue');
  });

  it('follows each business time zone', async () => {
    const kolkata = await h.newBusiness();
    const la = await h.newBusiness({ timezone: 'America/Los_Angeles', country: 'US', phone: '+1 415 555 0103' });
    const k = await due(kolkata, '2000-06-20');
    const l = await due(la, '2000-06-20');
    // 2000-06-21 00:30 in Kolkata is still 2000-06-20 12:00 in Los Angeles.
    h.clock.set('2000-06-20T19:00:00.000Z');
    await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(signal);
    expect((await stored(k.id)).status).toBe('overdue');
    expect((await stored(l.id)).status).toBe('pending');
    h.clock.set('2000-06-21T07:01:00.000Z'); // 00:01 on the 21st in Los Angeles
    await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(signal);
    expect((await stored(l.id)).status).toBe('overdue');
    await expectSummaryMatchesList(la);
    h.clock.set(NOW);
  });

  it('works through a large day in batches', async () => {
    const biz = await h.newBusiness();
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push((await due(biz, '2000-06-05', 10 + i)).id);
    const job = overdueSweeper({ db: h.store.db, clock: h.clock }, { duesPerBatch: 3, daysPerRun: 1 });
    let moved = 0;
    for (let run = 0; run < 20; run++) {
      const n = await job.runOnce(signal);
      moved += n;
      if (n === 0) break;
    }
    expect(moved).toBeGreaterThanOrEqual(7);
    for (const id of ids) expect((await stored(id)).status).toBe('overdue');
    await expectSummaryMatchesList(biz);
  });

  it('stays exact when mark-paid races with the sweep', async () => {
    const biz = await h.newBusiness();
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push((await due(biz, '2000-06-02', 1000 + i)).id);
    const job = overdueSweeper({ db: h.store.db, clock: h.clock }, { duesPerBatch: 2 });
    const results = await Promise.all([
      job.runOnce(signal),
      ...ids.map((id) => biz.post(`/v1/transactions/${id}/mark-paid`, {})),
      job.runOnce(signal),
    ]);
    for (const r of results.slice(1, -1)) expect((r as { status: number }).status).toBe(200);
    const s = (await biz.get('/v1/summary')).body.data;
    expect(s.paid.count).toBe(10);
    expect(s.overdue).toEqual({ count: 0, paise: 0 });
    expect(s.pending).toEqual({ count: 0, paise: 0 });
    expect(await storedTotals(biz.business.id)).toMatchObject({ pending_count: 0, overdue_count: 0, paid_count: 10 });
    // On PostgreSQL a mark-paid after the last sweep may leave the day's rows on two shards
    // (summing to nothing): the next sweep folds them away (totals/aggregates.ts).
    await job.runOnce(signal);
    const leftover = await h.store.db
      .selectFrom('pending_by_day')
      .selectAll()
      .where('business_id', '=', biz.business.id)
      .execute();
    expect(leftover).toEqual([]);
  });

  it('stops between batches when aborted', async () => {
    const biz = await h.newBusiness();
    await due(biz, '2000-06-03');
    const aborted = new AbortController();
    aborted.abort();
    expect(await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(aborted.signal)).toBe(0);
  });
});
