import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

let h: Harness;
let biz: TestBusiness;
beforeAll(async () => {
  h = await startHarness();
  biz = await h.newBusiness();
});
afterAll(() => h.close());

const LONG_ID = `x${'a'.repeat(300)}`;
const BAD_ENCODING = '%E0%A4%A';

/** PRODUCT part 16: every error the framework raises answers in the scope's own shape, never echoing the path. */
describe('framework errors', () => {
  it('answers an over-long path id on /v1 with the error envelope and no path echo', async () => {
    const res = await biz.get(`/v1/transactions/${LONG_ID}`);
    expect([404, 414]).toContain(res.status);
    expect(res.body.error.code).toBe(res.status === 404 ? 'not_found' : 'invalid_request');
    expect(res.text).not.toContain('aaaaaaaa');
    expect(res.text).not.toContain('FST_');
  });

  it('answers a bad percent-encoding on /v1 with the error envelope and no path echo', async () => {
    const res = await biz.get(`/v1/transactions/${BAD_ENCODING}zz`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: 'the URL is not valid percent-encoding' } });
    expect(res.headers['x-request-id']).toBeTypeOf('string');
  });

  it('answers an over-long path id and a bad encoding on /legacy with the earlier shape', async () => {
    for (const url of [`/legacy/v1/transactions/${LONG_ID}`, `/legacy/v1/transactions/${BAD_ENCODING}zz`]) {
      const res = await biz.get(url);
      expect(res.status, url).toBeGreaterThanOrEqual(400);
      expect(res.status, url).toBeLessThan(500);
      expect(typeof res.body.error, url).toBe('string');
      expect(res.text, url).not.toContain('aaaaaaaa');
      expect(res.text, url).not.toContain('%E0');
      expect(res.text, url).not.toContain('FST_');
    }
  });

  it('answers an over-long token and a bad encoding on /pay with an HTML page', async () => {
    for (const url of [`/pay/${LONG_ID}`, `/pay/${BAD_ENCODING}zz`]) {
      const res = await h.request('GET', url);
      expect(res.status, url).toBeGreaterThanOrEqual(400);
      expect(res.status, url).toBeLessThan(500);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.text, url).not.toContain('aaaaaaaa');
      expect(res.text, url).not.toContain('%E0');
      expect(res.text, url).not.toContain('FST_');
    }
  });

  it('answers an unsupported method with the envelope', async () => {
    const res = await h.request('PROPFIND' as never, '/v1/transactions', { headers: { 'x-api-key': biz.apiKey } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.code).toBeTypeOf('string');
    expect(res.text).not.toContain('FST_');
  });

  it('names the real body limit when a body is too large', async () => {
    const res = await biz.post('/v1/contacts', { name: 'Big', phone: 'x'.repeat(70_000) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(`request body is larger than 64 KB (${h.config.bodyLimitBytes} bytes)`);
  });
});
