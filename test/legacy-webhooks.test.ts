import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

/**
 * Webhook create, list and delete of the earlier shape (SPEC part 9): the same endpoints as /v1,
 * flat and camelCase, `{success, message}` on delete, `{"error"}` bodies, 400 for a bad create.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z' });
});
afterAll(() => h.close());

const URL_OK = 'https://erp.example.com/legacy-hook';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('POST /legacy/v1/webhooks', () => {
  it('creates an endpoint: flat, camelCase, secret shown once (201)', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/legacy/v1/webhooks', { url: URL_OK, events: ['transaction.paid', 'reminder.sent'] });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: URL_OK,
      events: ['transaction.paid', 'reminder.sent'],
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      active: true,
      createdAt: '2026-11-21T06:30:00.000Z',
    });
    // the same endpoint, seen through the current shape
    const current = await biz.get('/v1/webhooks');
    expect(current.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.id]);
  });

  it('answers 400 {"error"} to a bad body, including contact.created (not an earlier event)', async () => {
    const biz = await h.newBusiness();
    const cases: unknown[] = [
      { events: ['transaction.paid'] },
      { url: 'http://erp.example.com', events: ['transaction.paid'] },
      { url: URL_OK, events: [] },
      { url: URL_OK, events: ['contact.created'] },
      { url: URL_OK, events: ['nope'] },
      { url: URL_OK, events: ['transaction.paid'], extra: 1 },
    ];
    for (const body of cases) {
      const res = await biz.post('/legacy/v1/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body), JSON.stringify(body)).toEqual(['error']);
      expect(typeof res.body.error).toBe('string');
    }
    expect((await biz.get('/legacy/v1/webhooks')).body).toStrictEqual({ data: [] });
  });

  it('answers 400 (not 422) once the business has 20 endpoints', async () => {
    const biz = await h.newBusiness();
    for (let i = 0; i < 20; i++) {
      expect((await biz.post('/legacy/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] })).status).toBe(201);
    }
    const over = await biz.post('/legacy/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/20/);
  });

  it('answers 401 without a key', async () => {
    const res = await h.request('POST', '/legacy/v1/webhooks', { body: { url: URL_OK, events: ['transaction.paid'] } });
    expect(res.status).toBe(401);
    expect(typeof res.body.error).toBe('string');
  });
});

describe('GET /legacy/v1/webhooks', () => {
  it("lists the business's endpoints without secrets", async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/legacy/v1/webhooks', { url: URL_OK, events: ['transaction.created'] });
    const other = await h.newBusiness();
    await other.post('/legacy/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    const res = await biz.get('/legacy/v1/webhooks');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      data: [
        {
          id: created.body.id,
          url: URL_OK,
          events: ['transaction.created'],
          active: true,
          createdAt: created.body.createdAt,
        },
      ],
    });
    expect(res.text).not.toContain(created.body.secret);
  });
});

describe('DELETE /legacy/v1/webhooks/{id}', () => {
  it('deletes ({success: true, message}); the endpoint is gone from both shapes', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/legacy/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    const res = await biz.delete(`/legacy/v1/webhooks/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ success: true, message: expect.any(String) });
    expect((await biz.get('/legacy/v1/webhooks')).body.data).toEqual([]);
    expect((await biz.get('/v1/webhooks')).body.data).toEqual([]);
    expect((await biz.delete(`/legacy/v1/webhooks/${created.body.id}`)).status).toBe(404);
  });

  it('answers 404 {"error"} for unknown, malformed and another business\'s ids', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const created = await a.post('/legacy/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    for (const id of [MISSING, 'not-a-uuid', created.body.id]) {
      const res = await b.delete(`/legacy/v1/webhooks/${id}`);
      expect(res.status, id).toBe(404);
      expect(Object.keys(res.body)).toEqual(['error']);
    }
    expect((await a.get('/legacy/v1/webhooks')).body.data).toHaveLength(1);
  });
});

describe('OpenAPI', () => {
  it('documents the earlier webhook operations under the legacy tag', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    expect(doc.paths['/legacy/v1/webhooks'].post.tags).toEqual(['Legacy (earlier shape)']);
    expect(doc.paths['/legacy/v1/webhooks'].get).toBeDefined();
    expect(doc.paths['/legacy/v1/webhooks/{id}'].delete).toBeDefined();
  });
});
