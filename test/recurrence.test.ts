import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/http/metrics.js';
import { createJobs } from '../src/workers/index.js';
import { eventsOf, newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());
beforeEach(() => h.clock.set(NOW));

async function series(biz: TestBusiness, seriesId: string) {
  const res = await biz.get('/v1/transactions?limit=200');
  return (res.body.data as { series_id: string | null; due_date: string }[])
    .filter((t) => t.series_id === seriesId)
    .map((t) => t.due_date.slice(0, 10))
    .sort();
}

describe('recurring dues', () => {
  it('catches a monthly series dated in the past up at once, clamping the 31st to short months', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { due_date: '2026-08-31', recurrence: { interval: 'monthly', until: null } });
    const created = (await biz.get(`/v1/transactions/${first.id}`)).body.data;
    expect(created).toMatchObject({ series_id: first.id, recurrence: { interval: 'monthly', until: null } });
    expect(await series(biz, first.id)).toEqual(['2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30']);
    const events = await eventsOf(h, biz.business.id, 'transaction.created');
    expect(events.map((e) => e.data.dueDate)).toEqual(['2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30']);
    expect((await biz.get('/v1/summary')).body.data.overdue.count).toBe(3);
    // Nothing more until the next date arrives.
    await h.services.transactions.repeatArrived();
    expect(await series(biz, first.id)).toHaveLength(4);
  });

  it("creates the next due once the latest one's date arrives in the business's time zone", async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, {
      due_date: '2026-11-30',
      amount_paise: 4200,
      notes: 'rent',
      recurrence: { interval: 'monthly' },
    });
    // 23:59 on 29 November in Kolkata: not yet.
    h.clock.set('2026-11-29T18:29:00.000Z');
    await h.services.transactions.repeatArrived();
    expect(await series(biz, first.id)).toEqual(['2026-11-30']);
    // Midnight in Kolkata.
    h.clock.set('2026-11-29T18:30:00.000Z');
    await h.services.transactions.repeatArrived();
    await h.services.transactions.repeatArrived();
    expect(await series(biz, first.id)).toEqual(['2026-11-30', '2026-12-30']);
    const list = (await biz.get('/v1/transactions')).body.data;
    const next = list.find((t: { due_date: string }) => t.due_date === '2026-12-30T00:00:00.000Z');
    expect(next).toMatchObject({
      series_id: first.id,
      amount_paise: 4200,
      notes: 'rent',
      contact_id: first.contact_id,
      recurrence: { interval: 'monthly', until: null },
      status: 'pending',
      amount_paid_paise: 0,
    });
    expect(next.id).not.toBe(first.id);
    expect(next.pay_page_url).not.toBe(first.pay_page_url);
  });

  it('repeats weekly up to until, and a paid due still continues its series', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, {
      due_date: '2026-11-21',
      recurrence: { interval: 'weekly', until: '2026-12-05' },
    });
    expect(await series(biz, first.id)).toEqual(['2026-11-21', '2026-11-28']);
    await biz.post(`/v1/transactions/${first.id}/mark-paid`, {});
    h.clock.set('2026-11-28T00:00:00.000Z');
    await h.services.transactions.repeatArrived();
    expect(await series(biz, first.id)).toEqual(['2026-11-21', '2026-11-28', '2026-12-05']);
    h.clock.set('2026-12-05T00:00:00.000Z');
    await h.services.transactions.repeatArrived();
    expect(await series(biz, first.id)).toEqual(['2026-11-21', '2026-11-28', '2026-12-05']);
  });

  it('ends a series at a due patched with recurrence null, and starts one with a recurrence', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { due_date: '2026-11-25', recurrence: { interval: 'weekly' } });
    const stop = await biz.patch(`/v1/transactions/${first.id}`, { recurrence: null });
    expect(stop.body.data.recurrence).toBeNull();
    h.clock.set('2026-12-10T06:30:00.000Z');
    await h.services.transactions.repeatArrived();
    expect(await series(biz, first.id)).toEqual(['2026-11-25']);

    const plain = await newDue(biz, { due_date: '2026-12-03' });
    const start = await biz.patch(`/v1/transactions/${plain.id}`, { recurrence: { interval: 'weekly', until: null } });
    expect(start.body.data).toMatchObject({ series_id: plain.id, recurrence: { interval: 'weekly', until: null } });
    // Its date has arrived already: the series catches up in the same request.
    expect(await series(biz, plain.id)).toEqual(['2026-12-03', '2026-12-10', '2026-12-17']);
  });

  it('does not continue a series from a deleted due', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { due_date: '2026-11-25', recurrence: { interval: 'weekly' } });
    await biz.delete(`/v1/transactions/${first.id}`);
    h.clock.set('2026-11-26T06:30:00.000Z');
    await h.services.transactions.repeatArrived();
    const synced = await biz.get('/v1/transactions?since=2026-01-01T00:00:00Z&include_deleted=true');
    expect(synced.body.data.map((t: { due_date: string }) => t.due_date)).toEqual(['2026-11-25T00:00:00.000Z']);
  });

  it('creates each next due once when several workers run at the same time', async () => {
    const biz = await h.newBusiness();
    const firsts = await Promise.all(
      ['A', 'B', 'C'].map((n) =>
        newDue(biz, { contact_name: `Series ${n}`, due_date: '2026-11-24', recurrence: { interval: 'monthly' } }),
      ),
    );
    h.clock.set('2026-11-24T06:30:00.000Z');
    await Promise.all([
      h.services.transactions.repeatArrived(),
      h.services.transactions.repeatArrived(),
      h.services.transactions.repeatArrived(),
    ]);
    expect(await eventsOf(h, biz.business.id, 'transaction.created')).toHaveLength(6);
    for (const f of firsts) expect(await series(biz, f.id)).toEqual(['2026-11-24', '2026-12-24']);
  });

  it.each([
    [{ interval: 'daily' }],
    [{ interval: 'weekly', until: '2026-13-01' }],
    [{ interval: 'weekly', every: 2 }],
    ['monthly'],
  ])('answers 400 naming recurrence for %j on create', async (recurrence) => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/transactions', {
      amount_paise: 100,
      due_date: '2026-12-01',
      contact_name: 'Bad Series',
      recurrence,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/recurrence/);
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
  });

  it('runs as the recurrence job with the other workers', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { due_date: '2026-11-22', recurrence: { interval: 'weekly' } });
    const job = createJobs({
      config: h.config,
      store: h.store,
      clock: h.clock,
      services: h.services,
      metrics: createMetrics(),
    }).find((j) => j.name === 'recurrence');
    expect(job).toBeDefined();
    h.clock.set('2026-11-22T06:30:00.000Z');
    await job?.runOnce(new AbortController().signal);
    expect(await series(biz, first.id)).toEqual(['2026-11-22', '2026-11-29']);
  });
});
