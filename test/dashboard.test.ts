import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, DashboardClient, lastCode, loginLink, signInByCode, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness } from './helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z' });
});
afterAll(() => h?.close());

const PAGES = [
  '/dashboard',
  '/dashboard/dues',
  '/dashboard/dues/new',
  '/dashboard/contacts',
  '/dashboard/import',
  '/dashboard/settings',
  '/dashboard/developers',
];

describe('GET /dashboard pages without a session', () => {
  it('answer 303 to /dashboard/login', async () => {
    const client = new DashboardClient(h);
    for (const url of [...PAGES, '/dashboard/dues/0190a0a0-0000-7000-8000-000000000000']) {
      const res = await client.get(url);
      expect(res.status, url).toBe(303);
      expect(res.location, url).toBe('/dashboard/login');
    }
  });
});

describe('sign in by code', () => {
  it('sends a 6-digit code over the chat channel and signs in with it', async () => {
    const biz = await h.newBusiness();
    const client = await signInByCode(h, biz);
    const home = await client.get('/dashboard');
    expect(home.status).toBe(200);
    expect(home.text).toContain(biz.business.name);
  });

  it('sets an httpOnly, SameSite=Lax, Secure session cookie (PUBLIC_BASE_URL is https)', async () => {
    const biz = await h.newBusiness();
    const client = new DashboardClient(h);
    const csrf = csrfOf((await client.get('/dashboard/login')).text);
    await client.request('POST', '/dashboard/login', { _csrf: csrf, phone: biz.business.phone, action: 'send' });
    const res = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: biz.business.phone,
      code: lastCode(h, biz.business.phone),
      action: 'verify',
    });
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] as string[])
      .find((c) => c.startsWith('dashboard_session='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/Path=\/dashboard/);
    expect(cookie).toMatch(/Max-Age=2592000/);
  });

  it('refuses a wrong code, and after 5 wrong tries refuses the right one too', async () => {
    const biz = await h.newBusiness();
    const client = new DashboardClient(h);
    const csrf = csrfOf((await client.get('/dashboard/login')).text);
    await client.request('POST', '/dashboard/login', { _csrf: csrf, phone: biz.business.phone, action: 'send' });
    const code = lastCode(h, biz.business.phone);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await client.request('POST', '/dashboard/login', {
        _csrf: csrf,
        phone: biz.business.phone,
        code: wrong,
        action: 'verify',
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('That code is not right');
    }
    const right = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: biz.business.phone,
      code,
      action: 'verify',
    });
    expect(right.status).toBe(400);
    expect(client.cookies.has('dashboard_session')).toBe(false);
  });

  it('refuses a code after 10 minutes', async () => {
    const biz = await h.newBusiness();
    const client = new DashboardClient(h);
    const csrf = csrfOf((await client.get('/dashboard/login')).text);
    await client.request('POST', '/dashboard/login', { _csrf: csrf, phone: biz.business.phone, action: 'send' });
    const code = lastCode(h, biz.business.phone);
    h.clock.advance(10 * 60_000 + 1);
    const res = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: biz.business.phone,
      code,
      action: 'verify',
    });
    expect(res.status).toBe(400);
  });

  it('limits codes to 5 per phone per hour (429)', async () => {
    const biz = await h.newBusiness();
    const client = new DashboardClient(h);
    const csrf = csrfOf((await client.get('/dashboard/login')).text);
    for (let i = 0; i < 5; i++) {
      const res = await client.request('POST', '/dashboard/login', {
        _csrf: csrf,
        phone: biz.business.phone,
        action: 'send',
      });
      expect(res.status).toBe(200);
    }
    const limited = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: biz.business.phone,
      action: 'send',
    });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('answers an unknown phone as a known one, sending nothing', async () => {
    const client = new DashboardClient(h);
    const csrf = csrfOf((await client.get('/dashboard/login')).text);
    const res = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: '+91 90000 00001',
      action: 'send',
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('If this number belongs to a business');
    expect(() => lastCode(h, '919000000001')).toThrow(/no sign-in code/);
  });

  it('answers 400 naming the phone for an invalid one', async () => {
    const client = new DashboardClient(h);
    const csrf = csrfOf((await client.get('/dashboard/login')).text);
    const res = await client.request('POST', '/dashboard/login', { _csrf: csrf, phone: 'abc', action: 'send' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('valid phone number');
  });

  it('refuses a sign-in form without its CSRF token (403)', async () => {
    const biz = await h.newBusiness();
    const client = new DashboardClient(h);
    await client.get('/dashboard/login');
    const res = await client.request('POST', '/dashboard/login', {
      _csrf: 'forged',
      phone: biz.business.phone,
      action: 'send',
    });
    expect(res.status).toBe(403);
    expect(() => lastCode(h, biz.business.phone)).toThrow(/no sign-in code/);
  });
});

describe('sign in by link (admin CLI login-link)', () => {
  it('signs in once; the second use and a link older than 15 minutes are refused', async () => {
    const biz = await h.newBusiness();
    const url = await loginLink(h, biz.business.id);
    expect(url).toMatch(/^https:\/\/pay\.example\.test\/dashboard\/login\/[A-Za-z0-9_-]+$/);
    const path = new URL(url).pathname;
    const first = new DashboardClient(h);
    expect((await first.get(path)).status).toBe(303);
    expect((await first.get('/dashboard')).status).toBe(200);
    expect((await new DashboardClient(h).get(path)).status).toBe(404);

    const late = new URL(await loginLink(h, biz.business.id)).pathname;
    h.clock.advance(15 * 60_000 + 1);
    expect((await new DashboardClient(h).get(late)).status).toBe(404);
  });
});

describe('sessions', () => {
  it('end after 30 days', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    h.clock.advance(30 * 24 * 60 * 60_000 - 60_000);
    expect((await client.get('/dashboard')).status).toBe(200);
    h.clock.advance(60_001);
    const res = await client.get('/dashboard');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/login');
  });

  it('end with Sign out: the old cookie opens nothing', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const cookie = client.cookies.get('dashboard_session') as string;
    const out = await client.submit('/dashboard', '/dashboard/logout');
    expect(out.status).toBe(303);
    expect(out.location).toBe('/dashboard/login');
    const replay = new DashboardClient(h);
    replay.cookies.set('dashboard_session', cookie);
    expect((await replay.get('/dashboard')).status).toBe(303);
  });
});
