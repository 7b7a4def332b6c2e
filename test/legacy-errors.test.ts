import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

/**
 * Errors of the earlier shape (SPEC part 9, PRODUCT part 7): the body is {"error": "<message>"},
 * with the statuses of the current shape; keys, rate limit and business isolation are shared.
 */

const READS = [
  '/legacy/v1/summary',
  '/legacy/v1/transactions',
  '/legacy/v1/contacts',
  '/legacy/v1/transactions/0190a000-0000-7000-8000-000000000000',
  '/legacy/v1/contacts/0190a000-0000-7000-8000-000000000000',
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('authentication on /legacy/v1', () => {
  it('answers 401 {"error"} without a key or with an unknown one, on every endpoint', async () => {
    for (const url of READS) {
      const missing = await h.request('GET', url);
      expect(missing.status, url).toBe(401);
      expect(missing.body, url).toStrictEqual({ error: 'missing API key (x-api-key header)' });
      expect(missing.headers['content-type']).toMatch(/^application\/json/);
      expect(missing.headers['x-request-id']).toBeTruthy();
      const unknown = await h.request('GET', url, { headers: { 'x-api-key': 'rk_live_not-a-real-key' } });
      expect(unknown.status, url).toBe(401);
      expect(unknown.body, url).toStrictEqual({ error: 'invalid API key' });
    }
  });

  it('answers 403 {"error"} to a plan without API access, and to an expired business plan', async () => {
    const free = await h.newBusiness({ plan: 'free' });
    const res = await free.get('/legacy/v1/summary');
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual({ error: 'the plan does not include API access; upgrade to the business plan' });

    const expired = await h.newBusiness();
    await h.services.businesses.update(expired.business.id, { planExpiresAt: '2000-01-01T00:00:00.000Z' });
    const res2 = await expired.get('/legacy/v1/transactions');
    expect(res2.status).toBe(403);
    expect(res2.body).toStrictEqual({ error: 'the business plan has expired; renew it to use the API' });
  });

  it('carries the RateLimit headers of the shared per-key budget on success', async () => {
    const biz = await h.newBusiness();
    const res = await biz.get('/legacy/v1/summary');
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe(String(h.config.rateLimitPerMinute));
    expect(Number(res.headers['ratelimit-remaining'])).toBe(h.config.rateLimitPerMinute - 1);
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
  });
});

describe('404 on /legacy/v1', () => {
  it('answers 404 {"error"} for unknown ids, malformed ids and ids of another business', async () => {
    const owner = await h.newBusiness();
    const created = await owner.post('/v1/transactions', {
      amount_paise: 100,
      due_date: '2030-01-01',
      contact_name: 'Kavya Iyer',
    });
    const { id, contact_id: contactId } = created.body.data;
    expect((await owner.get(`/legacy/v1/transactions/${id}`)).status).toBe(200);
    expect((await owner.get(`/legacy/v1/transactions/${id.toUpperCase()}`)).status).toBe(200);

    const stranger = await h.newBusiness();
    for (const [url, message] of [
      [`/legacy/v1/transactions/${id}`, 'transaction not found'],
      [`/legacy/v1/contacts/${contactId}`, 'contact not found'],
      ['/legacy/v1/transactions/0190a000-0000-7000-8000-000000000000', 'transaction not found'],
      ['/legacy/v1/contacts/0190a000-0000-7000-8000-000000000000', 'contact not found'],
      ['/legacy/v1/transactions/12345', 'transaction not found'],
      ["/legacy/v1/contacts/x'%20or%201=1", 'contact not found'],
    ] as const) {
      const res = await stranger.get(url);
      expect(res.status, url).toBe(404);
      expect(res.body, url).toStrictEqual({ error: message });
    }
  });

  it('answers 404 {"error": "not found"} for paths and methods the earlier shape does not have', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/contacts', { name: 'Zoya Khan' });
    for (const [method, url] of [
      ['GET', '/legacy/v1/me'],
      ['GET', '/legacy/v1/nothing'],
      ['GET', '/legacy/nothing'],
      ['GET', '/legacy'],
      ['POST', '/legacy/v1/transactions'],
      ['POST', '/legacy/v1/contacts'],
      ['PATCH', `/legacy/v1/contacts/${created.body.data.id}`],
      ['POST', '/legacy/v1/transactions/0190a000-0000-7000-8000-000000000000/mark-paid'],
    ] as const) {
      const res = await h.request(method, url, {
        headers: { 'x-api-key': biz.apiKey },
        body: { amount_paise: 100, due_date: '2030-01-01', contact_name: 'X Y', name: 'Renamed' },
      });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body, `${method} ${url}`).toStrictEqual({ error: 'not found' });
    }
    expect((await biz.get('/legacy/v1/contacts')).body.total).toBe(1);
    expect((await biz.get(`/v1/contacts/${created.body.data.id}`)).body.data.name).toBe('Zoya Khan');
  });

  it('leaves the current shape and its error envelope as they are', async () => {
    const biz = await h.newBusiness();
    const res = await biz.get('/v1/transactions/0190a000-0000-7000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await h.request('GET', '/v1/summary')).body.error.code).toBe('unauthorized');
  });
});

describe('isolation between businesses', () => {
  it("never shows another business's dues, contacts or totals", async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    await a.post('/v1/transactions', { amount_paise: 5000, due_date: '2030-01-01', contact_name: 'Only In A' });
    expect((await b.get('/legacy/v1/transactions')).body).toStrictEqual({ data: [], total: 0, limit: 50, offset: 0 });
    expect((await b.get('/legacy/v1/contacts?search=only')).body).toStrictEqual({
      data: [],
      total: 0,
      limit: 50,
      offset: 0,
    });
    expect((await b.get('/legacy/v1/summary')).body).toMatchObject({
      overdue: { count: 0, paise: 0 },
      pending: { count: 0, paise: 0 },
      contactCount: 0,
    });
    expect((await a.get('/legacy/v1/transactions')).body.total).toBe(1);
  });
});

describe('rate limit shared with /v1', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '4', AUTH_FAILURES_PER_MINUTE: '2' } });
  });
  afterAll(() => limited.close());

  it('counts /v1 and /legacy/v1 requests against one budget per key, and answers 429 {"error"}', async () => {
    const biz = await limited.newBusiness();
    const bystander = await limited.newBusiness();
    expect((await biz.get('/v1/summary')).status).toBe(200);
    expect((await biz.get('/v1/me')).status).toBe(200);
    expect((await biz.get('/legacy/v1/summary')).status).toBe(200);
    const last = await biz.get('/legacy/v1/contacts');
    expect(last.status).toBe(200);
    expect(last.headers['ratelimit-remaining']).toBe('0');

    const over = await biz.get('/legacy/v1/transactions');
    expect(over.status).toBe(429);
    expect(over.body).toStrictEqual({ error: 'rate limit of 4 requests per minute exceeded; retry after 60 seconds' });
    expect(over.headers['retry-after']).toBe('60');
    expect(over.headers['ratelimit-limit']).toBe('4');
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect((await biz.get('/v1/summary')).body.error.code).toBe('rate_limited');
    expect((await bystander.get('/legacy/v1/summary')).status).toBe(200);

    limited.clock.advance(60_000);
    expect((await biz.get('/legacy/v1/summary')).status).toBe(200);
  });

  it('answers 429 {"error"} once failed authentications from an address exceed their limit', async () => {
    const bad = { headers: { 'x-api-key': 'rk_live_wrong' } };
    expect((await limited.request('GET', '/legacy/v1/summary', bad)).status).toBe(401);
    expect((await limited.request('GET', '/legacy/v1/summary', bad)).status).toBe(401);
    const res = await limited.request('GET', '/legacy/v1/summary', bad);
    expect(res.status).toBe(429);
    expect(res.body).toStrictEqual({ error: 'too many failed authentication attempts; retry after 60 seconds' });
    expect(res.headers['retry-after']).toBe('60');
  });
});
