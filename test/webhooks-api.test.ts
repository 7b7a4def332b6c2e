import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../src/outbox/events.js';
import { type Harness, startHarness } from './helpers/harness.js';

/**
 * The endpoint operations of SPEC part 4 as an API caller sees them: validation, limits, the
 * secret shown once, isolation between businesses. Sending is covered by webhooks-delivery.test.ts.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z' });
});
afterAll(() => h.close());

const MISSING = '00000000-0000-4000-8000-000000000000';
const URL_OK = 'https://erp.example.com/hooks/receivables';

describe('POST /v1/webhooks', () => {
  it('creates an endpoint (201) and returns its 64-hex secret once', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid', 'transaction.created'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: URL_OK,
        // catalogue order, whatever order they were asked in
        events: ['transaction.created', 'transaction.paid'],
        active: true,
        created_at: '2026-11-21T06:30:00.000Z',
        secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    const list = await biz.get('/v1/webhooks');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(res.body.data.secret);
    expect(list.body.data[0]).not.toHaveProperty('secret');
  });

  it('stores the secret encrypted, never in clear', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/webhooks', { url: URL_OK, events: ['contact.created'] });
    const row = await h.store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(res.body.data.secret);
    expect(row.secret_sealed).toMatch(/^v2\./);
  });

  it('gives every endpoint its own secret', async () => {
    const biz = await h.newBusiness();
    const a = await biz.post('/v1/webhooks', { url: URL_OK, events: ['contact.created'] });
    const b = await biz.post('/v1/webhooks', { url: URL_OK, events: ['contact.created'] });
    expect(a.body.data.secret).not.toBe(b.body.data.secret);
  });

  it('folds duplicate event names', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/webhooks', { url: URL_OK, events: ['reminder.sent', 'reminder.sent'] });
    expect(res.status).toBe(201);
    expect(res.body.data.events).toEqual(['reminder.sent']);
  });

  it('answers 400 naming the field for bad input, and creates nothing', async () => {
    const biz = await h.newBusiness();
    const cases: [unknown, string][] = [
      [{ events: ['transaction.paid'] }, 'url'],
      [{ url: URL_OK }, 'events'],
      [{ url: 'http://erp.example.com/hook', events: ['transaction.paid'] }, 'url'],
      [{ url: 'erp.example.com/hook', events: ['transaction.paid'] }, 'url'],
      [{ url: 'https://', events: ['transaction.paid'] }, 'url'],
      [{ url: 'ftp://erp.example.com', events: ['transaction.paid'] }, 'url'],
      [{ url: `https://erp.example.com/${'a'.repeat(2030)}`, events: ['transaction.paid'] }, 'url'],
      [{ url: 42, events: ['transaction.paid'] }, 'url'],
      [{ url: URL_OK, events: [] }, 'events'],
      [{ url: URL_OK, events: ['transaction.exploded'] }, 'events'],
      [{ url: URL_OK, events: 'transaction.paid' }, 'events'],
      [{ url: URL_OK, events: [7] }, 'events[0]'],
      [{ url: URL_OK, events: ['transaction.paid'], secret: 'mine' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const res = await biz.post('/v1/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.field, JSON.stringify(body)).toBe(field);
      expect(res.body.error.message).toContain(field);
    }
    const malformed = await biz.post('/v1/webhooks', undefined, {
      payload: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect((await biz.get('/v1/webhooks')).body.data).toEqual([]);
  });

  it('accepts a URL of exactly 2048 characters', async () => {
    const biz = await h.newBusiness();
    const base = 'https://erp.example.com/';
    const url = base + 'a'.repeat(2048 - base.length);
    const res = await biz.post('/v1/webhooks', { url, events: ['transaction.paid'] });
    expect(res.status).toBe(201);
    expect(res.body.data.url).toBe(url);
  });

  it('allows 20 endpoints per business, then answers 422; deleting one frees a place', async () => {
    const biz = await h.newBusiness();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await biz.post('/v1/webhooks', { url: `${URL_OK}/${i}`, events: ['transaction.paid'] });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    const over = await biz.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('unprocessable');
    // another business is not affected by this one's endpoints
    const other = await h.newBusiness();
    expect((await other.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] })).status).toBe(201);

    expect((await biz.delete(`/v1/webhooks/${ids[0]}`)).status).toBe(200);
    expect((await biz.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] })).status).toBe(201);
  });

  it('never exceeds 20 endpoints under concurrent creates', async () => {
    const biz = await h.newBusiness();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        biz.post('/v1/webhooks', { url: `${URL_OK}/${i}`, events: ['reminder.sent'] }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    expect(results.filter((r) => r.status === 422)).toHaveLength(10);
    expect((await biz.get('/v1/webhooks')).body.data).toHaveLength(20);
  });

  it('needs a valid API key', async () => {
    const res = await h.request('POST', '/v1/webhooks', { body: { url: URL_OK, events: ['transaction.paid'] } });
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/webhooks', () => {
  it('lists the endpoints, newest first, with the event catalogue', async () => {
    const biz = await h.newBusiness();
    const first = await biz.post('/v1/webhooks', { url: `${URL_OK}/1`, events: ['transaction.paid'] });
    h.clock.advance(1000);
    const second = await biz.post('/v1/webhooks', { url: `${URL_OK}/2`, events: EVENT_TYPES });
    const res = await biz.get('/v1/webhooks');
    expect(res.status).toBe(200);
    expect(res.body.events).toEqual([
      'transaction.created',
      'transaction.updated',
      'transaction.paid',
      'transaction.deleted',
      'payment.received',
      'reminder.sent',
      'contact.created',
    ]);
    expect(res.body.data).toEqual([
      {
        id: second.body.data.id,
        url: `${URL_OK}/2`,
        events: [...EVENT_TYPES],
        active: true,
        created_at: second.body.data.created_at,
        last_triggered_at: null,
        failure_count: 0,
        disabled_reason: null,
      },
      {
        id: first.body.data.id,
        url: `${URL_OK}/1`,
        events: ['transaction.paid'],
        active: true,
        created_at: first.body.data.created_at,
        last_triggered_at: null,
        failure_count: 0,
        disabled_reason: null,
      },
    ]);
  });

  it('shows a business only its own endpoints, and the catalogue when there are none', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    await a.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    const res = await b.get('/v1/webhooks');
    expect(res.body.data).toEqual([]);
    expect(res.body.events).toHaveLength(7);
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('deletes the endpoint ({deleted: true}); then it is gone (404)', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    const id = created.body.data.id;
    const res = await biz.delete(`/v1/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expect((await biz.get('/v1/webhooks')).body.data).toEqual([]);
    expect((await biz.delete(`/v1/webhooks/${id}`)).status).toBe(404);
    expect((await biz.get(`/v1/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await biz.post(`/v1/webhooks/${id}/test`)).status).toBe(404);
  });

  it("answers 404 for an unknown id, a non-uuid id and another business's endpoint", async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const created = await a.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    expect((await a.delete(`/v1/webhooks/${MISSING}`)).status).toBe(404);
    expect((await a.delete('/v1/webhooks/not-a-uuid')).status).toBe(404);
    const other = await b.delete(`/v1/webhooks/${created.body.data.id}`);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
    expect((await a.get('/v1/webhooks')).body.data).toHaveLength(1);
  });
});

describe('GET /v1/webhooks/{id}/deliveries', () => {
  it('starts empty and validates limit (1-100) and offset', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    const id = created.body.data.id;
    const res = await biz.get(`/v1/webhooks/${id}/deliveries`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], total: 0, limit: 50, offset: 0, hasMore: false });
    expect((await biz.get(`/v1/webhooks/${id}/deliveries?limit=100`)).body.limit).toBe(100);
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'page=2']) {
      const bad = await biz.get(`/v1/webhooks/${id}/deliveries?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.field, query).toBe(query.split('=')[0]);
    }
  });

  it("answers 404 for another business's endpoint", async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const created = await a.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    expect((await b.get(`/v1/webhooks/${created.body.data.id}/deliveries`)).status).toBe(404);
    expect((await a.get(`/v1/webhooks/${MISSING}/deliveries`)).status).toBe(404);
  });
});

describe('POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', () => {
  it('answers 404 for an unknown delivery, endpoint or another business', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const created = await a.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    const id = created.body.data.id;
    expect((await a.post(`/v1/webhooks/${id}/deliveries/${MISSING}/redeliver`)).status).toBe(404);
    expect((await a.post(`/v1/webhooks/${MISSING}/deliveries/${MISSING}/redeliver`)).status).toBe(404);
    expect((await b.post(`/v1/webhooks/${id}/deliveries/${MISSING}/redeliver`)).status).toBe(404);
    expect((await a.post(`/v1/webhooks/${id}/deliveries/nope/redeliver`)).status).toBe(404);
  });

  it('rejects a body with unknown fields', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/webhooks', { url: URL_OK, events: ['transaction.paid'] });
    const res = await biz.post(`/v1/webhooks/${created.body.data.id}/deliveries/${MISSING}/redeliver`, { now: true });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('now');
  });
});

describe('OpenAPI', () => {
  it('documents every webhook operation', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/webhooks'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(doc.paths['/v1/webhooks/{id}'].delete).toBeDefined();
    expect(doc.paths['/v1/webhooks/{id}/test'].post).toBeDefined();
    expect(doc.paths['/v1/webhooks/{id}/deliveries'].get).toBeDefined();
    expect(doc.paths['/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver'].post).toBeDefined();
    expect(doc.components.schemas.WebhookDelivery).toBeDefined();
  });
});
