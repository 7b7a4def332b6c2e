import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

/** A contact's `language` (its account page's language; null: the business's), set through the API. */

const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());

describe('contact language', () => {
  it('is set on create, read back, changed and cleared with PATCH', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/contacts', { name: 'Hindi Buyer', language: 'hi' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.language).toBe('hi');
    const id = created.body.data.id;
    expect((await biz.get(`/v1/contacts/${id}`)).body.data.language).toBe('hi');

    const plain = await biz.post('/v1/contacts', { name: 'Plain Buyer' });
    expect(plain.body.data.language).toBeNull();

    h.clock.advance(1000);
    const changed = await biz.patch(`/v1/contacts/${id}`, { language: 'en' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({ language: 'en', updated_at: '2026-11-21T06:30:01.000Z' });
    const listed = (await biz.get('/v1/contacts')).body.data.find((c: { id: string }) => c.id === id);
    expect(listed.language).toBe('en');

    const cleared = await biz.patch(`/v1/contacts/${id}`, { language: null });
    expect(cleared.body.data.language).toBeNull();
    h.clock.set(NOW);
  });

  it('fills the language of an existing contact that has none when it is created again by name', async () => {
    const biz = await h.newBusiness();
    const first = await biz.post('/v1/contacts', { name: 'Again Buyer' });
    const again = await biz.post('/v1/contacts', { name: 'again buyer', language: 'hi' });
    expect(again.body.data).toMatchObject({ id: first.body.data.id, language: 'hi' });
    const third = await biz.post('/v1/contacts', { name: 'Again Buyer', language: 'en' });
    expect(third.body.data.language).toBe('hi');
  });

  it('answers 400 naming language for a language other than en or hi, and changes nothing', async () => {
    const biz = await h.newBusiness();
    const { id } = (await biz.post('/v1/contacts', { name: 'Odd Buyer', language: 'hi' })).body.data;
    for (const language of ['fr', 'HI', '', 7]) {
      const patched = await biz.patch(`/v1/contacts/${id}`, { language });
      expect(patched.status, JSON.stringify(language)).toBe(400);
      expect(patched.body.error.field).toBe('language');
      const created = await biz.post('/v1/contacts', { name: 'New Odd Buyer', language });
      expect(created.status).toBe(400);
      expect(created.body.error.field).toBe('language');
    }
    expect((await biz.get(`/v1/contacts/${id}`)).body.data.language).toBe('hi');
    expect((await biz.get('/v1/contacts')).body.data).toHaveLength(1);
  });

  it("answers 404 for another business's contact and an unknown one", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const { id } = (await biz.post('/v1/contacts', { name: 'Kept Buyer' })).body.data;
    expect((await other.patch(`/v1/contacts/${id}`, { language: 'hi' })).status).toBe(404);
    expect((await biz.patch(`/v1/contacts/${randomUUID()}`, { language: 'hi' })).status).toBe(404);
    expect((await biz.get(`/v1/contacts/${id}`)).body.data.language).toBeNull();
  });
});
