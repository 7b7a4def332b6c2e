import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * Issue 18: `GET /v1/contacts?search=` is answered from an index (SQLite: the FTS5 trigram table
 * for 3+ characters; PostgreSQL: the pg_trgm index). Whatever path serves it, the answer is
 * PRODUCT part 4's: the contacts whose name holds the text, case-insensitively, newest first,
 * with the same totals, offsets and `starting_after` pages. The expected lists are worked out
 * here from the names the test created, not read back from the store.
 */
let h: Harness;
beforeAll(async () => {
  // SQLite: the lists run on read threads (read-only connections), as they do by default.
  h = await startHarness({ now: '2026-11-24T08:00:00.000Z', reads: { readThreads: 1 } });
});
afterAll(() => h.close());

interface Made {
  id: string;
  name: string;
  created_at: string;
}

const NAMES = [
  'Sharma Traders',
  'SHARMA & Sons',
  'Varma Tea Stall',
  'Karma Armature Works',
  'राम लाल',
  'श्याम राम ट्रेडर्स',
  'Shyam राम Kirana',
  '100% Cotton',
  'Cotton_Mill',
  'Green_Mart',
  'Cotton Mill',
  'Under_score_Co',
  'The "Quoted" Shop',
  'Back\\slash Supplies',
  'Müller Ärmel',
  'ab',
];

const SEARCHES = [
  'ar',
  'AR',
  'arm',
  'ARMA',
  'rma t',
  'sharma',
  'sharma traders',
  'राम',
  'रा',
  'म ल',
  'श्याम राम',
  '0%',
  '% c',
  '%%',
  '0% c',
  'n_m',
  'n_',
  '_s',
  '__',
  'on_mill',
  '"quoted"',
  '"q',
  'k\\s',
  'ärm',
  'ÄRMEL',
  'ab',
  'xyz',
  'no such name',
];

function key(text: string): string {
  return text.trim().normalize('NFC').toLowerCase();
}

/** PRODUCT part 4 worked out by hand: names holding the text, newest first (then id, descending). */
function expected(made: readonly Made[], search: string): string[] {
  return made
    .filter((c) => key(c.name).includes(key(search)))
    .sort((a, b) =>
      a.created_at === b.created_at ? b.id.localeCompare(a.id) : b.created_at.localeCompare(a.created_at),
    )
    .map((c) => c.id);
}

function ids(body: { data: { id: string }[] }): string[] {
  return body.data.map((c) => c.id);
}

async function create(biz: TestBusiness, names: readonly string[]): Promise<Made[]> {
  const made: Made[] = [];
  for (const [i, name] of names.entries()) {
    // Some contacts share a creation time, so the id breaks the tie in the list's order.
    if (i % 3 === 0) h.clock.advance(60_000);
    const res = await biz.post('/v1/contacts', { name });
    expect(res.status, name).toBe(201);
    made.push(res.body.data as Made);
  }
  return made;
}

/** Every page of a search through `starting_after` cursors, bounded so that a loop fails clearly. */
async function walk(biz: TestBusiness, search: string, limit: number): Promise<string[]> {
  const q = `/v1/contacts?search=${encodeURIComponent(search)}&limit=${limit}`;
  let page = (await biz.get(q)).body;
  const seen = ids(page);
  for (let pages = 1; page.hasMore; pages++) {
    expect(pages, 'the walk ends').toBeLessThanOrEqual(100);
    const next = await biz.get(`${q}&starting_after=${seen[seen.length - 1]}`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    page = next.body;
    seen.push(...ids(page));
  }
  return seen;
}

describe('GET /v1/contacts?search (through the name index)', () => {
  it('finds the names holding the text for 2, 3 and more characters, any case, Devanagari and wildcards', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const made = await create(biz, NAMES);
    // Another business's same names are never part of the answer.
    await create(other, NAMES.slice(0, 8));
    let nonEmpty = 0;
    for (const search of SEARCHES) {
      const want = expected(made, search);
      if (want.length > 0) nonEmpty++;
      const res = await biz.get(`/v1/contacts?search=${encodeURIComponent(search)}&limit=200`);
      expect(res.status, search).toBe(200);
      expect(ids(res.body), search).toEqual(want);
      expect(res.body.total, search).toBe(want.length);
    }
    // The cases are not all empty answers (which any broken search would also give).
    expect(nonEmpty).toBeGreaterThan(SEARCHES.length / 2);
  });

  it('pages a search the same way by offset and by starting_after', async () => {
    const biz = await h.newBusiness();
    const made = await create(biz, NAMES);
    for (const search of ['ar', 'arma', 'cotton', 'राम', 'n_m', 'n_']) {
      const want = expected(made, search);
      expect(want.length, search).toBeGreaterThan(1);
      expect(await walk(biz, search, 2), search).toEqual(want);
      const second = await biz.get(`/v1/contacts?search=${encodeURIComponent(search)}&limit=1&offset=1`);
      expect(second.body.total, search).toBe(want.length);
      expect(ids(second.body), search).toEqual(want.slice(1, 2));
    }
  });

  it('follows a rename: the old name is no longer found, the new one is', async () => {
    const biz = await h.newBusiness();
    const [tea] = await create(biz, ['Varma Tea Stall']);
    const id = (tea as Made).id;
    expect(ids((await biz.get('/v1/contacts?search=varma')).body)).toEqual([id]);
    const renamed = await biz.patch(`/v1/contacts/${id}`, { name: 'Verma Chai Point' });
    expect(renamed.status).toBe(200);
    expect((await biz.get('/v1/contacts?search=varma')).body.total).toBe(0);
    expect((await biz.get('/v1/contacts?search=tea stall')).body.total).toBe(0);
    expect(ids((await biz.get('/v1/contacts?search=CHAI P')).body)).toEqual([id]);
    // A change of case only keeps it findable.
    await biz.patch(`/v1/contacts/${id}`, { name: 'VERMA CHAI POINT' });
    expect(ids((await biz.get('/v1/contacts?search=chai')).body)).toEqual([id]);
  });

  it('answers the same in a bigger business, where a rare text is read through the index', async () => {
    const biz = await h.newBusiness();
    const fillers = Array.from({ length: 64 }, (_, i) => `Filler ${i} Mills`);
    const made = await create(biz, [...fillers, 'Zebrafish Kumar', 'Zebra Crossing Co', 'ज़ेबरा स्टोर्स']);
    for (const search of ['zebra', 'EBRA C', 'ज़ेबरा', 'mills', 'filler 1', 'ze', 'no such name']) {
      const want = expected(made, search);
      const res = await biz.get(`/v1/contacts?search=${encodeURIComponent(search)}&limit=200`);
      expect(res.status, search).toBe(200);
      expect(ids(res.body), search).toEqual(want);
      expect(res.body.total, search).toBe(want.length);
    }
    expect(await walk(biz, 'zebra', 1)).toEqual(expected(made, 'zebra'));
  });

  it('refuses control characters in the search with a 400 naming it, whatever the path', async () => {
    const biz = await h.newBusiness();
    await create(
      biz,
      Array.from({ length: 32 }, (_, i) => `Control ${i} Traders`),
    );
    for (const search of ['ab\u0000cd', 'abc\u0000', '\u0000\u0000\u0000', 'ab\u0001cd']) {
      const res = await biz.get(`/v1/contacts?search=${encodeURIComponent(search)}`);
      expect(res.status, JSON.stringify(search)).toBe(400);
      expect(res.body.error.field, JSON.stringify(search)).toBe('search');
    }
  });
});
