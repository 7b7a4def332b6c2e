import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, DashboardClient, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness } from './helpers/harness.js';

/** The dashboard import takes at most 5 MB like the API, and reads no body before the session is checked. */

const MB = 1024 * 1024;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z' });
});
afterAll(() => h.close());

async function total(apiKey: string): Promise<number> {
  const res = await h.request('GET', '/v1/transactions?limit=1', { headers: { 'x-api-key': apiKey } });
  return res.body.total;
}

describe('POST /dashboard/import', () => {
  it('without a session answers 303 to sign in, whatever the body (never read)', async () => {
    for (const payload of ['csv=x', `csv=${'a'.repeat(20 * MB)}`, '%%%not a form']) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/dashboard/import',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(303);
      expect(res.headers.location).toBe('/dashboard/login');
    }
  });

  it('with a forged session cookie answers 303 too', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/dashboard/import',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'dashboard_session=forged' },
      payload: `csv=${'a'.repeat(20 * MB)}`,
    });
    expect(res.statusCode).toBe(303);
  });

  it('refuses a CSV over 5 MB (400, nothing imported)', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const csrf = csrfOf((await client.get('/dashboard/import')).text);
    const header = 'contact_name,amount,due_date\n';
    const line = 'Big Buyer,1,2026-12-01\n';
    const csv = header + line.repeat(Math.ceil((5 * MB - header.length) / line.length) + 1);
    expect(Buffer.byteLength(csv)).toBeGreaterThan(5 * MB);
    const res = await client.request('POST', '/dashboard/import', { _csrf: csrf, csv, action: 'import' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('at most 5 MB');
    expect(await total(biz.apiKey)).toBe(0);
  });

  it('refuses a body over what 5 MB of CSV can take once URL-encoded (400)', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const csrf = csrfOf((await client.get('/dashboard/import')).text);
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await h.app.inject({
      method: 'POST',
      url: '/dashboard/import',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      payload: `_csrf=${csrf}&csv=${'%2C'.repeat(5 * MB + 1)}`,
    });
    expect(res.statusCode).toBe(400);
    expect(await total(biz.apiKey)).toBe(0);
  });

  it('still imports a file signed in', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const csrf = csrfOf((await client.get('/dashboard/import')).text);
    const res = await client.request('POST', '/dashboard/import', {
      _csrf: csrf,
      csv: 'contact_name,amount,due_date\nSmall Buyer,12,2026-12-01\n',
      action: 'import',
    });
    expect(res.status, res.text.slice(0, 300)).toBe(303);
    expect(await total(biz.apiKey)).toBe(1);
  });
});

describe('other signed-in forms', () => {
  it('answer 303 without a session, before their body is read', async () => {
    const client = new DashboardClient(h);
    const res = await client.request('POST', '/dashboard/dues', { contact_name: 'No Session', amount: '1' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/login');
  });
});
