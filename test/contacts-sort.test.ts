import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgres } from '../src/db/dialect.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

/** Every page of a sort, walked by cursor (bounded by the number of contacts). */
async function walk(biz: TestBusiness, query: string, limit: number, max: number): Promise<string[]> {
  const names: string[] = [];
  let after: string | null = null;
  for (let i = 0; i <= max; i++) {
    const res: { status: number; body: any } = await biz.get(
      `/v1/contacts?${query}&limit=${limit}${after ? `&starting_after=${after}` : ''}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    names.push(...res.body.data.map((c: { name: string }) => c.name));
    if (!res.body.hasMore) return names;
    after = res.body.data.at(-1).id;
  }
  throw new Error('more pages than contacts');
}

describe('GET /v1/contacts?sort=&has_balance=', () => {
  it('sorts by balance, name, oldest open due and creation, with cursor and offset paging', async () => {
    const biz = await h.newBusiness();
    // Created in this order (one ms apart): balances and oldest open dues differ.
    const plan: [string, number, string | null][] = [
      ['Delta', 3_000, '2026-11-10'],
      ['alpha', 1_000, '2026-12-05'],
      ['Charlie', 0, null],
      ['Bravo', 5_000, '2026-11-01'],
      ['Echo', 1_000, '2026-11-20'],
    ];
    for (const [name, paise, dueDate] of plan) {
      h.clock.advance(1);
      if (paise > 0) await newDue(biz, { contact_name: name, amount_paise: paise, due_date: dueDate });
      else await biz.post('/v1/contacts', { name });
    }
    // Echo pays its due and gets credit: a negative balance, nothing open.
    const echo = (await biz.get('/v1/contacts?search=echo')).body.data[0];
    await biz.post(`/v1/contacts/${echo.id}/payments`, { amount_paise: 1_500 });
    // Bravo's oldest due is paid: its next open due (later) decides.
    const bravo = (await biz.get('/v1/contacts?search=bravo')).body.data[0];
    await newDue(biz, { contact_id: bravo.id, contact_name: undefined, amount_paise: 500, due_date: '2026-11-15' });
    const [bravoOld] = (await biz.get(`/v1/transactions?contact_id=${bravo.id}&status=outstanding`)).body.data.filter(
      (t: { due_date: string }) => t.due_date.startsWith('2026-11-01'),
    );
    await biz.post(`/v1/transactions/${bravoOld.id}/mark-paid`, {});

    const expected: Record<string, string[]> = {
      'sort=balance_desc': ['Delta', 'alpha', 'Bravo', 'Charlie', 'Echo'],
      'sort=name': ['alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'],
      'sort=oldest_due': ['Delta', 'Bravo', 'alpha', 'Charlie', 'Echo'],
      'sort=created_desc': ['Echo', 'Bravo', 'Charlie', 'alpha', 'Delta'],
      'sort=balance_desc&has_balance=true': ['Delta', 'alpha', 'Bravo'],
      'has_balance=true&sort=name': ['alpha', 'Bravo', 'Delta'],
    };
    for (const [query, names] of Object.entries(expected)) {
      expect(await walk(biz, query, 2, 5), query).toEqual(names);
      const page = await biz.get(`/v1/contacts?${query}&limit=2&offset=1`);
      expect(
        page.body.data.map((c: { name: string }) => c.name),
        query,
      ).toEqual(names.slice(1, 3));
      expect(page.body.total, query).toBe(names.length);
    }
    const listed = (await biz.get('/v1/contacts?sort=balance_desc')).body.data;
    expect(listed.map((c: { balance_paise: number }) => c.balance_paise)).toEqual([3_000, 1_000, 500, 0, -500]);
    const bad = await biz.get('/v1/contacts?sort=richest');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('sort');
  });
});

describe('GET /v1/contacts?has_balance=true total', () => {
  /** The total as the list answers it, the contacts above 0 as walked, and verify's differences. */
  async function owing(biz: TestBusiness) {
    const total = (await biz.get('/v1/contacts?has_balance=true&limit=1')).body.total;
    const walked = await walk(biz, 'has_balance=true', 50, 10);
    const { differences } = await verifyStore(h.store.db, { businessId: biz.business.id, integrity: false });
    return { total, walked: walked.length, differences };
  }

  it('follows every balance that crosses 0, whatever moves it, and is the kept count', async () => {
    const biz = await h.newBusiness();
    const steady = { differences: [] };
    expect(await owing(biz)).toEqual({ total: 0, walked: 0, ...steady });
    const first = await newDue(biz, { contact_name: 'Ravi', amount_paise: 2_000 });
    const other = await newDue(biz, { contact_name: 'Sita', amount_paise: 1_000 });
    await newDue(biz, { contact_name: 'Sita', amount_paise: 4_000 });
    expect(await owing(biz)).toEqual({ total: 2, walked: 2, ...steady });
    // Ravi pays more than he owes: settled, then credit (a negative balance is not owing).
    const receipt = await biz.post(`/v1/contacts/${first.contact_id}/payments`, { amount_paise: 2_500 });
    expect(receipt.status).toBe(201);
    expect(await owing(biz)).toEqual({ total: 1, walked: 1, ...steady });
    // A new due larger than his credit: above 0 again. A smaller one would not be.
    await newDue(biz, { contact_name: 'Ravi', amount_paise: 400 });
    expect(await owing(biz)).toEqual({ total: 1, walked: 1, ...steady });
    await newDue(biz, { contact_name: 'Ravi', amount_paise: 700 });
    expect(await owing(biz)).toEqual({ total: 2, walked: 2, ...steady });
    // Sita: one due written off, the other deleted: 0.
    expect(
      (await biz.post(`/v1/transactions/${other.id}/adjustments`, { kind: 'write_off', amount_paise: 1_000 })).status,
    ).toBe(201);
    expect(await owing(biz)).toEqual({ total: 2, walked: 2, ...steady });
    const sitas = (await biz.get(`/v1/transactions?contact_id=${other.contact_id}&status=pending`)).body.data;
    expect(sitas).toHaveLength(1);
    expect((await biz.delete(`/v1/transactions/${sitas[0].id}`)).status).toBeLessThan(300);
    expect(await owing(biz)).toEqual({ total: 1, walked: 1, ...steady });

    // The total is the kept count, not a walk: a count set wrong shows in the list and in verify.
    // (On PostgreSQL, one of the business's totals rows: readers sum them.)
    const oneRow = isPostgres(h.store.db)
      ? sql`and shard = (select min(shard) from business_totals where business_id = ${biz.business.id})`
      : sql``;
    await sql`update business_totals set balance_contact_count = balance_contact_count + 5
      where business_id = ${biz.business.id} ${oneRow}`.execute(h.store.db);
    const wrong = await owing(biz);
    expect(wrong.total).toBe(6);
    expect(wrong.walked).toBe(1);
    expect(wrong.differences).toEqual([
      expect.objectContaining({ check: 'business_totals', field: 'balance_contact_count', kept: 6, expected: 1 }),
    ]);
  });
});
