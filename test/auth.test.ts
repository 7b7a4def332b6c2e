import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusinessService } from '../src/businesses/service.js';
import { openStore } from '../src/db/store.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';

describe('authentication (x-api-key)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('answers 401 with the error envelope when the key is missing', async () => {
    const res = await h.request('GET', '/v1/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('API key') } });
  });

  it('answers 401 for an unknown key and for a key of the wrong shape', async () => {
    for (const key of ['rk_live_doesnotexistdoesnotexistdoesnotexist', 'hello', '']) {
      const res = await h.request('GET', '/v1/summary', { headers: { 'x-api-key': key } });
      expect(res.status, key).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it('issues keys of the documented shape and accepts them', async () => {
    const biz = await h.newBusiness();
    expect(biz.apiKey).toMatch(/^rk_live_[A-Za-z0-9_-]{32,}$/);
    const res = await biz.get('/v1/me');
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(biz.business.id);
  });

  it('stores only a hash of the key', async () => {
    const biz = await h.newBusiness();
    const rows = await h.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('business_id', '=', biz.business.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(biz.apiKey);
    expect(JSON.stringify(rows)).not.toContain(biz.apiKey.slice(8));
  });

  it('rejects a revoked key and keeps other keys of the business working', async () => {
    const biz = await h.newBusiness();
    const second = await h.services.businesses.issueKey(biz.business.id);
    // used first, so that a server keeping authenticated keys must notice the revocation
    expect((await biz.get('/v1/me')).status).toBe(200);
    expect(await h.services.businesses.revokeKey(biz.apiKey)).toBe(true);
    expect((await biz.get('/v1/me')).status).toBe(401);
    const res = await h.request('GET', '/v1/me', { headers: { 'x-api-key': second } });
    expect(res.status).toBe(200);
  });

  /**
   * SQLite sees another connection's commit on the next request. PostgreSQL serves cached keys
   * until the change's notification arrives (milliseconds after the commit: db/store.ts
   * keyChanges), so there the request is repeated until it answers `status`, for at most 5 s.
   */
  async function seen(biz: TestBusiness, status: number) {
    const deadline = Date.now() + 5000;
    for (;;) {
      const res = await biz.get('/v1/me');
      if (res.status === status || STORE === 'sqlite' || Date.now() > deadline) return res;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('sees a revocation or plan change committed by another connection (the admin CLI) on the next request (PostgreSQL: once notified)', async () => {
    const other = openStore({ dataDir: h.dataDir, databaseUrl: h.databaseUrl, pgPoolMax: 1 });
    try {
      const cli = new BusinessService({ db: other.db, clock: h.clock });
      const biz = await h.newBusiness();
      const spare = await h.newBusiness();
      expect((await biz.get('/v1/me')).status).toBe(200);
      expect((await spare.get('/v1/me')).status).toBe(200);

      await cli.update(biz.business.id, { plan: 'free' });
      expect((await seen(biz, 403)).status).toBe(403);
      await cli.update(biz.business.id, { plan: 'business' });
      const renewed = await seen(biz, 200);
      expect(renewed.status).toBe(200);
      expect(renewed.body.data.plan).toBe('business');

      expect(await cli.revokeKey(spare.apiKey)).toBe(true);
      expect((await seen(spare, 401)).status).toBe(401);
      expect((await biz.get('/v1/me')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('answers 403 for plans without API access', async () => {
    for (const plan of ['free', 'basic']) {
      const biz = await h.newBusiness({ plan });
      const res = await biz.get('/v1/me');
      expect(res.status, plan).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('answers 403 once a business plan has expired, and 200 again after renewal', async () => {
    const biz = await h.newBusiness();
    const past = new Date(h.clock.now().getTime() - 1000).toISOString();
    await h.services.businesses.update(biz.business.id, { planExpiresAt: past });
    const expired = await biz.get('/v1/transactions');
    expect(expired.status).toBe(403);
    expect(expired.body.error.message).toMatch(/expired/);
    const future = new Date(h.clock.now().getTime() + 86_400_000).toISOString();
    await h.services.businesses.update(biz.business.id, { planExpiresAt: future });
    expect((await biz.get('/v1/transactions')).status).toBe(200);
  });

  it('defaults a new plan to expire one year after creation', async () => {
    const biz = await h.newBusiness();
    const created = Date.parse(biz.business.created_at);
    const expires = Date.parse(biz.business.plan_expires_at);
    expect(expires - created).toBe(365 * 24 * 60 * 60 * 1000);
  });

  it('does not leak another route to unauthenticated callers of unknown ids', async () => {
    const res = await h.request('GET', '/v1/transactions/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(401);
  });
});

describe('rate limit per API key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '5', AUTH_FAILURES_PER_MINUTE: '3' } });
  });
  afterAll(() => h.close());

  it('sends RateLimit headers on every authenticated response and 429 with Retry-After: 60 past the limit', async () => {
    const biz = await h.newBusiness();
    for (let i = 1; i <= 5; i++) {
      const res = await biz.get('/v1/me');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('5');
      expect(res.headers['ratelimit-remaining']).toBe(String(5 - i));
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    }
    const limited = await biz.get('/v1/me');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.body.error.code).toBe('rate_limited');
  });

  it('counts errors too, limits each key separately, and opens a new window after 60 seconds', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    for (let i = 0; i < 5; i++) {
      expect((await a.get('/v1/transactions/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    }
    expect((await a.get('/v1/me')).status).toBe(429);
    expect((await b.get('/v1/me')).status).toBe(200);
    h.clock.advance(60_000);
    const again = await a.get('/v1/me');
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('4');
  });

  it('applies to POST endpoints as well', async () => {
    const biz = await h.newBusiness();
    for (let i = 0; i < 5; i++) expect((await biz.post('/v1/contacts', { name: `Buyer ${i}` })).status).toBe(201);
    const limited = await biz.post('/v1/contacts', { name: 'One too many' });
    expect(limited.status).toBe(429);
    const list = await h.services.contacts.list(biz.business, {});
    expect(list.total).toBe(5);
  });

  it('limits failed authentication per client address', async () => {
    const biz = await h.newBusiness();
    h.clock.advance(60_000);
    for (let i = 0; i < 3; i++) {
      expect(
        (await h.request('GET', '/v1/me', { headers: { 'x-api-key': 'rk_live_wrongwrongwrongwrongwrongwrongwrong' } }))
          .status,
      ).toBe(401);
    }
    const blocked = await h.request('GET', '/v1/me', {
      headers: { 'x-api-key': 'rk_live_wrongwrongwrongwrongwrongwrongwrong' },
    });
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe('60');
    // A caller with a valid key is not locked out by someone else's failures.
    expect((await biz.get('/v1/me')).status).toBe(200);
  });
});
