import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * Incremental sync by `since` never misses a change: a due's updated_at only moves forward (at
 * least 1 ms per change, whatever the clocks say), a contact's new name or phone moves its dues,
 * and contacts take `since` too.
 */

const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());
beforeEach(() => h.clock.set(NOW));

async function sinceIds(biz: TestBusiness, url: string, since: string): Promise<string[]> {
  const res = await biz.get(`${url}?since=${encodeURIComponent(since)}&limit=100`);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as { id: string }[]).map((r) => r.id).sort();
}

describe("a due's updated_at", () => {
  it('moves forward with every change under concurrent writers, and the newest is the state kept', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 1_000_000 });
    // One instant on the clock for every writer: only the rule can order their stamps.
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => biz.patch(`/v1/transactions/${due.id}`, { notes: `writer ${i}` })),
      ...Array.from({ length: 10 }, () => biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 100 })),
    ]);
    for (const a of answers) expect(a.status, a.text).toBeLessThan(300);
    const stamps = answers.map((a) => (a.body.data.transaction ?? a.body.data).updated_at as string);
    expect(new Set(stamps).size).toBe(stamps.length);
    for (const s of stamps) expect(s > due.updated_at).toBe(true);
    const final = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    const newest = [...stamps].sort().at(-1) as string;
    expect(final.updated_at).toBe(newest);
    // The answer stamped newest is the last committed: its state is the one kept.
    const last = answers[stamps.indexOf(newest)]?.body.data;
    expect(final.amount_paid_paise).toBe(1000);
    if (last.notes !== undefined) expect(final.notes).toBe(last.notes);
    else expect(final.amount_paid_paise).toBe(last.transaction.amount_paid_paise);
  });

  it('moves forward even when the clock goes back (another process, a skewed host)', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    h.clock.set('2026-11-21T05:30:00.000Z');
    const patched = await biz.patch(`/v1/transactions/${due.id}`, { notes: 'from a slow clock' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.updated_at).toBe('2026-11-21T06:30:00.001Z');
    const paid = await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 100 });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.data.transaction.updated_at).toBe('2026-11-21T06:30:00.002Z');
    expect(await sinceIds(biz, '/v1/transactions', '2026-11-21T06:30:00.002Z')).toEqual([due.id]);
  });
});

describe("a contact's new name or phone", () => {
  it("moves its dues' updated_at: a sync by since sees their new contact_name and contact_phone", async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { contact_name: 'Old Name' });
    const second = await newDue(biz, { contact_name: 'Old Name', due_date: '2026-12-05' });
    const other = await newDue(biz, { contact_name: 'Someone Else' });
    h.clock.set('2026-11-21T07:00:00.000Z');
    const renamed = await biz.patch(`/v1/contacts/${first.contact_id}`, { name: 'New Name' });
    expect(renamed.status, renamed.text).toBe(200);
    const changed = await biz.get(`/v1/transactions?since=${encodeURIComponent('2026-11-21T07:00:00.000Z')}`);
    expect(changed.body.data.map((d: { id: string }) => d.id).sort()).toEqual([first.id, second.id].sort());
    for (const d of changed.body.data) expect(d.contact_name).toBe('New Name');
    expect(changed.body.data.map((d: { id: string }) => d.id)).not.toContain(other.id);

    h.clock.set('2026-11-21T08:00:00.000Z');
    expect((await biz.patch(`/v1/contacts/${first.contact_id}`, { phone: '+91 98765 11111' })).status).toBe(200);
    expect(await sinceIds(biz, '/v1/transactions', '2026-11-21T08:00:00.000Z')).toEqual([first.id, second.id].sort());

    // Pausing reminders changes no field of the dues: they stay as they were.
    h.clock.set('2026-11-21T09:00:00.000Z');
    expect((await biz.patch(`/v1/contacts/${first.contact_id}`, { reminders_paused: true })).status).toBe(200);
    expect(await sinceIds(biz, '/v1/transactions', '2026-11-21T09:00:00.000Z')).toEqual([]);
  });

  it('moves them when a create fills in the contact phone', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { contact_name: 'Phoneless' });
    h.clock.set('2026-11-21T07:00:00.000Z');
    const second = await newDue(biz, { contact_name: 'Phoneless', contact_phone: '+91 98765 22222' });
    expect(await sinceIds(biz, '/v1/transactions', '2026-11-21T07:00:00.000Z')).toEqual([first.id, second.id].sort());
    const read = (await biz.get(`/v1/transactions/${first.id}`)).body.data;
    expect(read.contact_phone).toBe('919876522222');
  });
});

describe('GET /v1/contacts?since=', () => {
  it('lists the contacts changed at or after the instant, newest version of each', async () => {
    const biz = await h.newBusiness();
    const a = (await biz.post('/v1/contacts', { name: 'Contact A' })).body.data;
    const b = (await biz.post('/v1/contacts', { name: 'Contact B' })).body.data;
    expect(await sinceIds(biz, '/v1/contacts', NOW)).toEqual([a.id, b.id].sort());
    h.clock.set('2026-11-21T07:00:00.000Z');
    const renamed = await biz.patch(`/v1/contacts/${a.id}`, { name: 'Contact A2' });
    expect(renamed.body.data.updated_at).toBe('2026-11-21T07:00:00.000Z');
    const res = await biz.get(`/v1/contacts?since=${encodeURIComponent('2026-11-21T07:00:00.000Z')}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, hasMore: false });
    expect(res.body.data).toMatchObject([{ id: a.id, name: 'Contact A2', updated_at: '2026-11-21T07:00:00.000Z' }]);
    expect(await sinceIds(biz, '/v1/contacts', '2026-11-21T07:00:00.001Z')).toEqual([]);
  });

  it("stamps a contact's changes in order even when the clock goes back", async () => {
    const biz = await h.newBusiness();
    const a = (await biz.post('/v1/contacts', { name: 'Skewed Contact' })).body.data;
    h.clock.set('2026-11-21T05:00:00.000Z');
    const renamed = await biz.patch(`/v1/contacts/${a.id}`, { name: 'Skewed Contact 2' });
    expect(renamed.body.data.updated_at).toBe('2026-11-21T06:30:00.001Z');
  });

  it('answers 400 naming since when it is not a date-time', async () => {
    const biz = await h.newBusiness();
    const res = await biz.get('/v1/contacts?since=yesterday');
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('since');
  });
});
