import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdToTheMicrosecond } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/** PRODUCT part 17: `starting_after` cursors on the dues and contacts lists. */

// 2026-11-21 12:00 in Asia/Kolkata (the default business time zone).
const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW, reads: { readThreads: 2 } });
});
afterAll(() => h.close());

type Row = { id: string };
const idsOf = (body: { data: Row[] }) => body.data.map((r) => r.id);

/** Walks a list by cursor, `limit` rows a page, checking each page's metadata; returns the ids in order. */
async function walk(biz: TestBusiness, path: string, limit: number): Promise<string[]> {
  const sep = path.includes('?') ? '&' : '?';
  const first = await biz.get(`${path}${sep}limit=${limit}`);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const total = first.body.total as number;
  const seen = idsOf(first.body);
  let page = first.body;
  // Each page but the last is full and says more follow; a bound that fails clearly if it never ends.
  for (let pages = 1; page.hasMore; pages++) {
    expect(pages, 'the walk ends').toBeLessThanOrEqual(total);
    expect(page.data).toHaveLength(limit);
    const last = seen[seen.length - 1] as string;
    const next = await biz.get(`${path}${sep}limit=${limit}&starting_after=${last}`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body).toMatchObject({ total, limit, offset: 0 });
    page = next.body;
    seen.push(...idsOf(page));
  }
  expect(seen).toHaveLength(total);
  return seen;
}

describe('GET /v1/transactions?starting_after', () => {
  async function dues(biz: TestBusiness) {
    // Dates repeat and several dues share a creation instant: the order falls back to created_at, then id.
    const dates = ['2026-12-05', '2026-11-01', '2026-12-05', '2026-12-20', '2026-11-01', '2026-12-05', '2026-11-30'];
    const ids: string[] = [];
    for (const [i, d] of dates.entries()) {
      const res = await biz.post('/v1/transactions', {
        amount_paise: 1000 + i,
        due_date: d,
        contact_name: i % 2 === 0 ? 'Cursor Even' : 'Cursor Odd',
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
      if (i % 3 === 2) h.clock.advance(1000);
    }
    return ids;
  }

  it('walks every due once, in the list order, page after page', async () => {
    const biz = await h.newBusiness();
    await dues(biz);
    const all = await biz.get('/v1/transactions?limit=200');
    for (const limit of [1, 2, 3, 7]) {
      expect(await walk(biz, '/v1/transactions', limit), `limit ${limit}`).toEqual(idsOf(all.body));
    }
  });

  it('walks ties of due date whose creation time was written to the microsecond (SQL now()), each once', async () => {
    const biz = await h.newBusiness();
    await dues(biz);
    // One creation time for all, finer than a millisecond (PostgreSQL keeps microseconds): a cursor
    // whose created_at were cut to milliseconds would sort before or after its own row's key.
    await createdToTheMicrosecond(h, 'transactions', biz);
    const all = await biz.get('/v1/transactions?limit=200');
    for (const limit of [1, 2, 3]) {
      expect(await walk(biz, '/v1/transactions', limit), `limit ${limit}`).toEqual(idsOf(all.body));
    }
  });

  it('gives the page that follows a row in the middle, and an empty last page', async () => {
    const biz = await h.newBusiness();
    await dues(biz);
    const order = idsOf((await biz.get('/v1/transactions')).body);
    const middle = await biz.get(`/v1/transactions?starting_after=${order[2]}&limit=2`);
    expect(middle.status).toBe(200);
    expect(middle.body).toMatchObject({ total: 7, limit: 2, offset: 0, hasMore: true });
    expect(idsOf(middle.body)).toEqual(order.slice(3, 5));
    const tail = await biz.get(`/v1/transactions?starting_after=${order[4]}&limit=2`);
    expect(tail.body).toMatchObject({ hasMore: false });
    expect(idsOf(tail.body)).toEqual(order.slice(5, 7));
    const end = await biz.get(`/v1/transactions?starting_after=${order[6]}`);
    expect(end.status).toBe(200);
    expect(end.body).toMatchObject({ data: [], total: 7, hasMore: false });
    // offset=0 is allowed with a cursor
    expect(idsOf((await biz.get(`/v1/transactions?starting_after=${order[4]}&offset=0`)).body)).toEqual(order.slice(5));
  });

  it('answers every offset page as a slice of the whole list, past the middle too (read from the end)', async () => {
    const biz = await h.newBusiness();
    const ids = await dues(biz);
    await biz.post(`/v1/transactions/${ids[1]}/mark-paid`, {});
    for (const query of [
      '',
      'status=outstanding&',
      `contact_id=${(await biz.get(`/v1/transactions/${ids[0]}`)).body.data.contact_id}&`,
    ]) {
      const all = idsOf((await biz.get(`/v1/transactions?${query}limit=200`)).body);
      for (let offset = 0; offset <= all.length + 1; offset++) {
        const page = await biz.get(`/v1/transactions?${query}limit=3&offset=${offset}`);
        expect(page.status).toBe(200);
        expect(idsOf(page.body), `${query} offset ${offset}`).toEqual(all.slice(offset, offset + 3));
        expect(page.body.hasMore).toBe(offset + 3 < all.length);
      }
    }
  });

  it('keeps the filters: status, contact_id and since', async () => {
    const biz = await h.newBusiness();
    const ids = await dues(biz);
    await biz.post(`/v1/transactions/${ids[3]}/mark-paid`, {});
    const overdue = idsOf((await biz.get('/v1/transactions?status=overdue')).body);
    expect(overdue).toHaveLength(2);
    expect(await walk(biz, '/v1/transactions?status=outstanding', 2)).toEqual(
      idsOf((await biz.get('/v1/transactions?status=outstanding')).body),
    );
    expect(await walk(biz, '/v1/transactions?status=overdue', 1)).toEqual(overdue);
    const even = (await biz.get(`/v1/transactions/${ids[0]}`)).body.data.contact_id;
    const evens = idsOf((await biz.get(`/v1/transactions?contact_id=${even}`)).body);
    expect(evens).toHaveLength(4);
    expect(await walk(biz, `/v1/transactions?contact_id=${even}`, 3)).toEqual(evens);
    const since = encodeURIComponent(NOW);
    const synced = idsOf((await biz.get(`/v1/transactions?since=${since}`)).body);
    expect(synced).toHaveLength(7);
    expect(await walk(biz, `/v1/transactions?since=${since}`, 2)).toEqual(synced);
  });

  it('starts after a row the filter no longer shows, at its place in the order', async () => {
    const biz = await h.newBusiness();
    await dues(biz);
    const open = idsOf((await biz.get('/v1/transactions?status=outstanding')).body);
    // The client read open[2] as the last of a page; it is paid before the next page is asked for.
    expect((await biz.post(`/v1/transactions/${open[2]}/mark-paid`, {})).status).toBe(200);
    const next = await biz.get(`/v1/transactions?status=outstanding&starting_after=${open[2]}`);
    expect(next.status).toBe(200);
    expect(idsOf(next.body)).toEqual(open.slice(3));
    expect(next.body.total).toBe(6);
  });

  it('answers 400 naming starting_after for a malformed, unknown or another business id, and offset with it', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const [mine] = await dues(biz);
    const theirs = (
      await other.post('/v1/transactions', { amount_paise: 5, due_date: '2026-12-01', contact_name: 'Theirs' })
    ).body.data.id;
    const theirContact = (await other.get('/v1/contacts')).body.data[0].id;
    for (const cursor of ['abc', '123', MISSING, theirs, theirContact]) {
      const res = await biz.get(`/v1/transactions?starting_after=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body.error, cursor).toMatchObject({ code: 'invalid_request', field: 'starting_after' });
      expect(res.body.error.message, cursor).toMatch(/starting_after/);
    }
    const withOffset = await biz.get(`/v1/transactions?starting_after=${mine}&offset=2`);
    expect(withOffset.status).toBe(400);
    expect(withOffset.body.error).toMatchObject({ code: 'invalid_request', field: 'offset' });
    expect(withOffset.body.error.message).toMatch(/starting_after/);
  });
});

describe('GET /v1/contacts?starting_after', () => {
  async function contacts(biz: TestBusiness, names: string[]) {
    const ids: string[] = [];
    for (const [i, name] of names.entries()) {
      const res = await biz.post('/v1/contacts', { name, phone: `987${i}012345` });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
      // pairs share a creation instant: the order falls back to the id
      if (i % 2 === 1) h.clock.advance(1000);
    }
    return ids;
  }
  const NAMES = ['Asha Traders', 'Bala Stores', 'Chandra Mills', 'Asha Fabrics', 'Deepak Oils', 'Asha Metals'];

  it('walks every contact once, newest first', async () => {
    const biz = await h.newBusiness();
    await contacts(biz, NAMES);
    const all = idsOf((await biz.get('/v1/contacts')).body);
    expect(all).toHaveLength(6);
    for (const limit of [1, 2, 4]) expect(await walk(biz, '/v1/contacts', limit), `limit ${limit}`).toEqual(all);
    const end = await biz.get(`/v1/contacts?starting_after=${all[5]}`);
    expect(end.body).toMatchObject({ data: [], total: 6, hasMore: false, offset: 0 });
  });

  it('walks contacts whose creation time was written to the microsecond (SQL now()), each once', async () => {
    const biz = await h.newBusiness();
    await contacts(biz, NAMES);
    await createdToTheMicrosecond(h, 'contacts', biz);
    const all = idsOf((await biz.get('/v1/contacts')).body);
    for (const limit of [1, 2]) expect(await walk(biz, '/v1/contacts', limit), `limit ${limit}`).toEqual(all);
  });

  it('keeps the search and phone filters', async () => {
    const biz = await h.newBusiness();
    await contacts(biz, NAMES);
    const asha = idsOf((await biz.get('/v1/contacts?search=asha')).body);
    expect(asha).toHaveLength(3);
    expect(await walk(biz, '/v1/contacts?search=asha', 1)).toEqual(asha);
    const after = await biz.get(`/v1/contacts?search=asha&starting_after=${asha[0]}&limit=1`);
    expect(after.body).toMatchObject({ total: 3, hasMore: true });
    expect(idsOf(after.body)).toEqual([asha[1]]);
    const phones = idsOf((await biz.get('/v1/contacts?phone=012345')).body);
    expect(phones).toHaveLength(6);
    expect(await walk(biz, '/v1/contacts?phone=012345', 4)).toEqual(phones);
  });

  it('answers 400 naming starting_after for a malformed, unknown or another business id, and offset with it', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const [mine] = await contacts(biz, NAMES.slice(0, 2));
    const theirs = (await other.post('/v1/contacts', { name: 'Their Buyer' })).body.data.id;
    const dueId = (await biz.post('/v1/transactions', { amount_paise: 5, due_date: '2026-12-01', contact_id: mine }))
      .body.data.id;
    for (const cursor of ['abc', MISSING, theirs, dueId]) {
      const res = await biz.get(`/v1/contacts?starting_after=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body.error, cursor).toMatchObject({ code: 'invalid_request', field: 'starting_after' });
    }
    const withOffset = await biz.get(`/v1/contacts?starting_after=${mine}&offset=1`);
    expect(withOffset.status).toBe(400);
    expect(withOffset.body.error).toMatchObject({ field: 'offset' });
  });
});

describe('GET /v1/transactions with a contact and a date-based status', () => {
  it("splits a contact's open dues into pending and overdue on both stores", async () => {
    const biz = await h.newBusiness();
    const late = await biz.post('/v1/transactions', { amount_paise: 5, due_date: '2026-11-01', contact_name: 'Split' });
    const soon = await biz.post('/v1/transactions', { amount_paise: 6, due_date: '2026-12-01', contact_name: 'Split' });
    const contact = late.body.data.contact_id;
    const overdue = await biz.get(`/v1/transactions?contact_id=${contact}&status=overdue`);
    expect(overdue.status, JSON.stringify(overdue.body)).toBe(200);
    expect(idsOf(overdue.body)).toEqual([late.body.data.id]);
    const pending = await biz.get(
      `/v1/transactions?contact_id=${contact}&status=pending&starting_after=${late.body.data.id}`,
    );
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ total: 1, data: [] });
    expect(idsOf((await biz.get(`/v1/transactions?contact_id=${contact}&status=pending`)).body)).toEqual([
      soon.body.data.id,
    ]);
  });
});
