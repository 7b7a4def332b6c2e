import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/db/store.js';
import { overdueSweeper } from '../src/workers/overdue-sweeper.js';
import { type Harness, startHarness, type TestBusiness, uniquePhone } from './helpers/harness.js';

// 2026-11-21 12:00 in Asia/Kolkata (the default business time zone): inside reminder hours.
const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

/** Hits and misses of the rendered responses of `route` so far, from /metrics. */
async function cacheCounts(route = 'transactions') {
  const text = (await h.request('GET', '/metrics')).text;
  const read = (outcome: string) =>
    Number(
      text.match(
        new RegExp(`^rendered_response_cache_total\\{route="${route}",outcome="${outcome}"\\} (\\d+)`, 'm'),
      )?.[1] ?? 0,
    );
  return { hit: read('hit'), miss: read('miss') };
}

async function dues(biz: TestBusiness, query = '') {
  const res = await biz.get(`/v1/transactions${query}`);
  expect(res.status, res.text).toBe(200);
  return res;
}

async function newDue(biz: TestBusiness, body: Record<string, unknown> = {}) {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 50_000,
    due_date: '2026-11-25',
    contact_name: 'Cache Buyer',
    contact_phone: uniquePhone(),
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe('GET /v1/transactions: rendered pages', () => {
  it('serves a repeated page rendered, byte for byte what it read before', async () => {
    const biz = await newBusinessWithDues(3);
    const before = await cacheCounts();
    const first = await dues(biz);
    const again = await dues(biz);
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body.data).toHaveLength(3);
    expect(await cacheCounts()).toEqual({ hit: before.hit + 1, miss: before.miss + 1 });
  });

  it('shows every change to the business dues or contacts on the next read, whatever made it', async () => {
    const biz = await newBusinessWithDues(1);
    const [due] = (await dues(biz)).body.data;

    await biz.post(`/v1/transactions/${due.id}/remind`, {});
    expect((await dues(biz)).body.data[0].reminder_count).toBe(1);

    await biz.patch(`/v1/contacts/${due.contact_id}`, { name: 'Renamed Buyer', phone: '+91 98111 22333' });
    const renamed = (await dues(biz)).body.data[0];
    expect(renamed.contact_name).toBe('Renamed Buyer');
    expect(renamed.contact_phone).toBe('919811122333');

    const added = await newDue(biz, { contact_name: 'Second Buyer', due_date: '2026-11-30' });
    const afterCreate = await dues(biz);
    expect(afterCreate.body.total).toBe(2);
    expect(afterCreate.body.data.map((d: { id: string }) => d.id)).toEqual([added.id, due.id]);

    await biz.post(`/v1/transactions/${added.id}/mark-paid`, { utr: 'UTR-CACHE-1' });
    expect((await dues(biz, '?status=paid')).body.data.map((d: { utr: string }) => d.utr)).toEqual(['UTR-CACHE-1']);
    expect((await dues(biz)).body.data[0].status).toBe('paid');

    // Another process's write, straight to the store: no code of this process runs for it.
    const other = openStore({ dataDir: h.dataDir, databaseUrl: h.databaseUrl, pgPoolMax: 1 });
    try {
      await other.db.updateTable('transactions').set({ notes: 'written elsewhere' }).where('id', '=', due.id).execute();
    } finally {
      await other.close();
    }
    expect((await dues(biz)).body.data[1].notes).toBe('written elsewhere');
  });

  it('follows the overdue sweep and the turn of the day', async () => {
    const biz = await h.newBusiness();
    await newDue(biz, { due_date: '2026-11-21' });
    expect((await dues(biz, '?status=pending')).body.total).toBe(1);
    expect((await dues(biz, '?status=overdue')).body.total).toBe(0);
    // The next day in the business's zone: the same query is another page.
    h.clock.set('2026-11-22T06:30:00.000Z');
    try {
      expect((await dues(biz, '?status=overdue')).body.data.map((d: { status: string }) => d.status)).toEqual([
        'overdue',
      ]);
      await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(new AbortController().signal);
      const swept = await dues(biz, '?status=overdue');
      expect(swept.body.total).toBe(1);
      expect(swept.body.data[0].updated_at).toBe('2026-11-22T06:30:00.000Z');
    } finally {
      h.clock.set(NOW);
    }
  });

  it('keeps a page while only another business changes, and keeps pages of different queries apart', async () => {
    const biz = await newBusinessWithDues(2);
    const other = await newBusinessWithDues(1);
    await dues(biz);
    const before = await cacheCounts();
    await newDue(other);
    await dues(biz);
    expect((await cacheCounts()).hit).toBe(before.hit + 1);

    const limited = await dues(biz, '?limit=1');
    expect(limited.body.data).toHaveLength(1);
    expect(limited.body.hasMore).toBe(true);
    const second = await dues(biz, '?limit=1&offset=1');
    expect(second.body.data[0].id).not.toBe(limited.body.data[0].id);
    expect((await dues(biz, `?contact_id=${limited.body.data[0].contact_id}`)).body.total).toBe(1);
  });

  it('does not keep incremental-sync pages (since)', async () => {
    const biz = await newBusinessWithDues(1);
    const before = await cacheCounts();
    await dues(biz, `?since=${encodeURIComponent('2026-01-01T00:00:00Z')}`);
    await dues(biz, `?since=${encodeURIComponent('2026-01-01T00:00:00Z')}`);
    expect(await cacheCounts()).toEqual(before);
  });
});

describe('GET /v1/contacts/{id}: rendered', () => {
  async function contact(biz: TestBusiness, id: string) {
    const res = await biz.get(`/v1/contacts/${id}`);
    expect(res.status, res.text).toBe(200);
    return res;
  }

  it('serves a repeated read rendered, and shows every change to its dues, its row or the day', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Balance Buyer', due_date: '2026-11-21' });
    const before = await cacheCounts('contact');
    const first = await contact(biz, due.contact_id);
    expect((await contact(biz, due.contact_id)).text).toBe(first.text);
    expect(await cacheCounts('contact')).toEqual({ hit: before.hit + 1, miss: before.miss + 1 });
    expect(first.body.data).toMatchObject({ outstanding_paise: 50_000, pending_count: 1, overdue_count: 0 });

    await newDue(biz, { contact_id: due.contact_id, contact_name: undefined, contact_phone: undefined });
    expect((await contact(biz, due.contact_id)).body.data).toMatchObject({ total_transactions: 2, pending_count: 2 });

    const pay = await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 20_000 });
    expect(pay.status, pay.text).toBe(201);
    expect((await contact(biz, due.contact_id)).body.data.outstanding_paise).toBe(80_000);

    await biz.patch(`/v1/contacts/${due.contact_id}`, { reminders_paused: true });
    expect((await contact(biz, due.contact_id)).body.data.reminders_paused).toBe(true);

    // Another process's write, straight to the store.
    const other = openStore({ dataDir: h.dataDir, databaseUrl: h.databaseUrl, pgPoolMax: 1 });
    try {
      await other.db
        .updateTable('contacts')
        .set({ name: 'Named Elsewhere' })
        .where('id', '=', due.contact_id)
        .execute();
    } finally {
      await other.close();
    }
    expect((await contact(biz, due.contact_id)).body.data.name).toBe('Named Elsewhere');

    // This process's own write outside any transaction (a statement committed on its own, as a
    // repository may make one), then one inside a transaction: both are seen on the next read.
    await h.store.db.updateTable('contacts').set({ name: 'Named Here' }).where('id', '=', due.contact_id).execute();
    expect((await contact(biz, due.contact_id)).body.data.name).toBe('Named Here');
    await h.store.db
      .transaction()
      .execute((trx) =>
        trx.updateTable('contacts').set({ name: 'Named In A Transaction' }).where('id', '=', due.contact_id).execute(),
      );
    expect((await contact(biz, due.contact_id)).body.data.name).toBe('Named In A Transaction');

    // The next day in the business's zone: the first due is overdue, with nothing written.
    h.clock.set('2026-11-22T06:30:00.000Z');
    try {
      expect((await contact(biz, due.contact_id)).body.data).toMatchObject({ overdue_count: 1, pending_count: 1 });
    } finally {
      h.clock.set(NOW);
    }
  });

  it("keeps another business's contact apart: 404, never a kept read", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const due = await newDue(biz);
    await contact(biz, due.contact_id);
    const res = await other.get(`/v1/contacts/${due.contact_id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers reads of several businesses made at once each with its own data, after a change to one', async () => {
    const businesses = await Promise.all([h.newBusiness(), h.newBusiness(), h.newBusiness()]);
    const dues = await Promise.all(businesses.map((biz) => newDue(biz)));
    const readAll = () => Promise.all(businesses.map((biz, i) => contact(biz, dues[i].contact_id)));
    await readAll();
    const [changed] = businesses;
    const pay = await changed.post(`/v1/transactions/${dues[0].id}/payments`, { amount_paise: 10_000 });
    expect(pay.status, pay.text).toBe(201);
    // Read together (on PostgreSQL their data versions are read by one statement): only the first moved.
    const after = await readAll();
    expect(after.map((res) => res.body.data.outstanding_paise)).toEqual([40_000, 50_000, 50_000]);
  });
});

describe('RESPONSE_CACHE_MB=0', () => {
  it('reads every list page from the store', async () => {
    const off = await startHarness({ now: NOW, env: { RESPONSE_CACHE_MB: '0' } });
    try {
      const biz = await off.newBusiness();
      for (const path of ['/v1/transactions', '/v1/transactions']) {
        expect((await biz.get(path)).status).toBe(200);
      }
      expect((await off.request('GET', '/metrics')).text).not.toMatch(/^rendered_response_cache_total\{/m);
    } finally {
      await off.close();
    }
  });
});

async function newBusinessWithDues(count: number) {
  const biz = await h.newBusiness();
  for (let i = 0; i < count; i++) await newDue(biz, { contact_name: `Cache Buyer ${i}` });
  return biz;
}
