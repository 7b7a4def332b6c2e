import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dashboardPurge } from '../src/workers/dashboard-purge.js';
import {
  claimPayment,
  csrfOf,
  DashboardClient,
  lastCode,
  loginLink,
  signInByCode,
  signInByLink,
} from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

const APP_SECRET = 'dashboard-app-secret-0123456789';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z', env: { WHATSAPP_APP_SECRET: APP_SECRET } });
});
afterAll(() => h?.close());
// 11:30 in Kolkata: tests that move the clock (expiry) leave no trace on the next one.
beforeEach(() => h.clock.set('2026-03-10T06:00:00.000Z'));

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

  it('are purged once ended, with the expired sign-in codes and links (the dashboard-purge job)', async () => {
    const biz = await h.newBusiness();
    const live = await signInByLink(h, biz.business.id);
    await loginLink(h, biz.business.id);
    const job = dashboardPurge({ db: h.store.db, clock: h.clock });
    const count = async () => ({
      sessions: (
        await h.store.db
          .selectFrom('dashboard_sessions')
          .select('token_hash')
          .where('business_id', '=', biz.business.id)
          .execute()
      ).length,
      logins: (
        await h.store.db
          .selectFrom('dashboard_logins')
          .select('id')
          .where('business_id', '=', biz.business.id)
          .execute()
      ).length,
    });
    expect(await count()).toEqual({ sessions: 1, logins: 2 });
    h.clock.advance(3 * 60 * 60_000);
    await job.runOnce(new AbortController().signal);
    expect(await count()).toEqual({ sessions: 1, logins: 0 });
    expect((await live.get('/dashboard')).status).toBe(200);
    h.clock.advance(30 * 24 * 60 * 60_000);
    await job.runOnce(new AbortController().signal);
    expect(await count()).toEqual({ sessions: 0, logins: 0 });
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

/** Adds a due through the dashboard's form; returns its page path. */
async function addDue(client: DashboardClient, fields: Record<string, string>): Promise<string> {
  const res = await client.submit('/dashboard/dues/new', '/dashboard/dues', fields);
  expect(res.status, res.text).toBe(303);
  expect(res.location).toMatch(/^\/dashboard\/dues\/[0-9a-f-]{36}\?ok=created$/);
  return (res.location as string).replace(/\?.*$/, '');
}

describe('dues pages', () => {
  it('add a due from the form (amount in rupees), then show it in the list and on its page', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const path = await addDue(client, {
      contact_name: 'Ravi Kumar',
      contact_phone: '98765 11111',
      amount: '1,23,450.50',
      due_date: '2026-03-20',
      invoice_number: 'INV-7',
    });
    const id = path.split('/').at(-1) as string;
    const api = await biz.get(`/v1/transactions/${id}`);
    expect(api.body.data).toMatchObject({
      amount_paise: 12_345_050,
      contact_name: 'Ravi Kumar',
      invoice_number: 'INV-7',
      status: 'pending',
    });

    const page = await client.get(`${path}?ok=created`);
    expect(page.text).toContain('₹1,23,450.50');
    expect(page.text).toContain('20 March 2026');
    expect(page.text).toContain('The due was added.');
    const list = await client.get('/dashboard/dues');
    expect(list.text).toContain(`href="${path}"`);
  });

  it('answers 400 naming the amount for a bad amount, keeps what was typed, and creates nothing', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const res = await client.submit('/dashboard/dues/new', '/dashboard/dues', {
      contact_name: 'Ravi Kumar',
      amount: '12abc',
      due_date: '2026-03-20',
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('amount must be an amount in rupees');
    expect(res.text).toContain('value="Ravi Kumar"');
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);

    const badDate = await client.submit('/dashboard/dues/new', '/dashboard/dues', {
      contact_name: 'Ravi Kumar',
      amount: '100',
      due_date: '2026-02-30',
    });
    expect(badDate.status).toBe(400);
    expect(badDate.text).toContain('due_date');
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
  });

  it('search by contact name, filter by status and page through 20 at a time', async () => {
    const biz = await h.newBusiness();
    for (let i = 0; i < 22; i++) {
      await biz.post('/v1/transactions', { amount_paise: 100 + i, due_date: '2026-03-20', contact_name: `Buyer ${i}` });
    }
    await biz.post('/v1/transactions', { amount_paise: 5000, due_date: '2026-03-01', contact_name: 'Meena Stores' });
    const client = await signInByLink(h, biz.business.id);
    const first = await client.get('/dashboard/dues');
    expect(first.text).toContain('23 dues');
    expect(first.text).toContain('Page 1 of 2');
    expect(first.text.match(/<li><span><a href="\/dashboard\/dues\//g)).toHaveLength(20);
    const second = await client.get('/dashboard/dues?status=outstanding&page=2');
    expect(second.text.match(/<li><span><a href="\/dashboard\/dues\//g)).toHaveLength(3);
    const overdue = await client.get('/dashboard/dues?status=overdue');
    expect(overdue.text).toContain('1 dues');
    expect(overdue.text).toContain('Meena Stores');
    const search = await client.get('/dashboard/dues?status=all&q=meena');
    expect(search.text).toContain('Meena Stores');
    expect(search.text).not.toContain('Buyer 1');
    const march = await client.get('/dashboard/dues?status=all&from=2026-02-01&to=2026-03-05');
    expect(march.text).toContain('1 dues');
    expect(march.text).toContain('Meena Stores');
    const bad = await client.get('/dashboard/dues?from=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('from must be a calendar date');
  });

  it('edit, record a part payment (source dashboard), mark paid', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const path = await addDue(client, { contact_name: 'Ravi Kumar', amount: '1000', due_date: '2026-03-20' });
    const id = path.split('/').at(-1) as string;

    const edited = await client.submit(path, `${path}/edit`, {
      amount: '1,500',
      due_date: '2026-03-25',
      invoice_number: '',
      notes: 'cement',
      reminders_paused: 'true',
    });
    expect(edited.status, edited.text).toBe(303);
    expect((await biz.get(`/v1/transactions/${id}`)).body.data).toMatchObject({
      amount_paise: 150_000,
      due_date: '2026-03-25T00:00:00.000Z',
      notes: 'cement',
      reminders_paused: true,
    });

    const paid = await client.submit(path, `${path}/payments`, { amount: '500', payment_method: 'cash', utr: '' });
    expect(paid.status, paid.text).toBe(303);
    const payments = await biz.get(`/v1/transactions/${id}/payments`);
    expect(payments.body.data).toMatchObject([{ amount_paise: 50_000, payment_method: 'cash', source: 'dashboard' }]);

    const over = await client.submit(path, `${path}/payments`, { amount: '5000', payment_method: 'cash' });
    expect(over.status).toBe(400);
    expect(over.text).toContain('must not exceed the balance');
    expect((await biz.get(`/v1/transactions/${id}/payments`)).body.data).toHaveLength(1);

    const done = await client.submit(path, `${path}/mark-paid`);
    expect(done.status).toBe(303);
    const after = await biz.get(`/v1/transactions/${id}`);
    expect(after.body.data).toMatchObject({ status: 'paid', balance_paise: 0 });
    expect((await biz.get(`/v1/transactions/${id}/payments`)).body.data.at(-1)).toMatchObject({ source: 'dashboard' });
    const page = await client.get(path);
    expect(page.text).not.toContain(`${path}/mark-paid`);
  });

  it('remind sends over the chat channel; delete removes a due without payments', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const path = await addDue(client, {
      contact_name: 'Ravi Kumar',
      contact_phone: '98765 22222',
      amount: '100',
      due_date: '2026-03-20',
    });
    const reminded = await client.submit(path, `${path}/remind`);
    expect(reminded.status).toBe(303);
    expect(reminded.location).toBe(`${path}?ok=reminded`);
    const again = await client.submit(path, `${path}/remind`);
    expect(again.location).toBe(`${path}?ok=held&reason=too_soon`);
    expect((await client.get(again.location as string)).text).toContain(
      'The reminder was not sent: a reminder was sent too recently.',
    );

    const deleted = await client.submit(path, `${path}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe('/dashboard/dues?ok=deleted');
    expect((await client.get(path)).status).toBe(404);
  });

  it('shares the pay link: the link itself and a wa.me link with a ready message', async () => {
    const biz = await h.newBusiness({ name: 'Sharma Traders' });
    const client = await signInByLink(h, biz.business.id);
    const path = await addDue(client, {
      contact_name: 'Ravi Kumar',
      contact_phone: '98765 33333',
      amount: '250',
      due_date: '2026-03-20',
    });
    const id = path.split('/').at(-1) as string;
    const payUrl = (await biz.get(`/v1/transactions/${id}`)).body.data.pay_page_url as string;
    const page = await client.get(path);
    expect(page.text).toContain(`value="${payUrl}"`);
    const wa = /href="(https:\/\/wa\.me\/[^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&') as string;
    const url = new URL(wa);
    expect(url.pathname).toBe('/919876533333');
    expect(url.searchParams.get('text')).toBe(
      `Hello Ravi Kumar, ₹250.00 is due to Sharma Traders on 20 March 2026. Pay here: ${payUrl}`,
    );
  });
});

describe('adding a due twice from one form', () => {
  it('adds it once (the form carries a one-time key): a double tap lands on the same due; a payment likewise', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const form = await client.get('/dashboard/dues/new');
    const once = /name="once" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const fields = {
      _csrf: csrfOf(form.text),
      once,
      contact_name: 'Ravi Kumar',
      amount: '100',
      due_date: '2026-03-20',
    };
    const [a, b] = await Promise.all([
      client.request('POST', '/dashboard/dues', fields),
      client.request('POST', '/dashboard/dues', fields),
    ]);
    expect(a.status).toBe(303);
    expect(b.status).toBe(303);
    expect(b.location).toBe(a.location);
    expect((await biz.get('/v1/transactions')).body.total).toBe(1);
    const other = await client.get('/dashboard/dues/new');
    expect(/name="once" value="([^"]+)"/.exec(other.text)?.[1]).not.toBe(once);

    // The same payment form sent twice records one payment.
    const path = a.location?.replace(/\?.*$/, '') as string;
    const page = await client.get(path);
    const payOnce =
      /action="[^"]+\/payments"><input type="hidden" name="_csrf" value="[^"]+"><input type="hidden" name="once" value="([^"]+)"/.exec(
        page.text,
      )?.[1] as string;
    const pay = { _csrf: csrfOf(page.text), once: payOnce, amount: '40', payment_method: 'cash' };
    const [p1, p2] = await Promise.all([
      client.request('POST', `${path}/payments`, pay),
      client.request('POST', `${path}/payments`, pay),
    ]);
    expect([p1.status, p2.status]).toEqual([303, 303]);
    const id = path.split('/').at(-1) as string;
    expect((await biz.get(`/v1/transactions/${id}/payments`)).body.data).toHaveLength(1);
    expect((await biz.get(`/v1/transactions/${id}`)).body.data.balance_paise).toBe(6_000);
  });
});

describe('claims (PRODUCT part 11)', () => {
  it('a buyer\'s "I have paid" shows on home and on the due; confirm records the balance, reject records nothing', async () => {
    const biz = await h.newBusiness();
    const claimOn = async (amount: number) => {
      const due = await biz.post('/v1/transactions', {
        amount_paise: amount,
        due_date: '2026-03-20',
        contact_name: `Buyer ${amount}`,
      });
      await claimPayment(h, due.body.data.pay_page_url, `UTR${amount}`);
      return due.body.data.id as string;
    };
    const first = await claimOn(10_000);
    const second = await claimOn(20_000);
    const client = await signInByLink(h, biz.business.id);
    const home = await client.get('/dashboard');
    expect(home.text).toContain('UTR10000');
    expect(home.text).toContain('UTR20000');

    const page = await client.get(`/dashboard/dues/${first}`);
    const claimId = /\/claims\/([0-9a-f-]{36})\/confirm/.exec(page.text)?.[1] as string;
    const confirmed = await client.submit(
      `/dashboard/dues/${first}`,
      `/dashboard/dues/${first}/claims/${claimId}/confirm`,
    );
    expect(confirmed.status).toBe(303);
    expect((await biz.get(`/v1/transactions/${first}`)).body.data.status).toBe('paid');
    expect((await biz.get(`/v1/transactions/${first}/payments`)).body.data).toMatchObject([
      { amount_paise: 10_000, source: 'claim', utr: 'UTR10000' },
    ]);
    const again = await client.submit(`/dashboard/dues/${first}`, `/dashboard/dues/${first}/claims/${claimId}/confirm`);
    expect(again.status).toBe(409);

    const page2 = await client.get(`/dashboard/dues/${second}`);
    const claim2 = /\/claims\/([0-9a-f-]{36})\/reject/.exec(page2.text)?.[1] as string;
    const rejected = await client.submit(
      `/dashboard/dues/${second}`,
      `/dashboard/dues/${second}/claims/${claim2}/reject`,
    );
    expect(rejected.status).toBe(303);
    expect((await biz.get(`/v1/transactions/${second}`)).body.data.status).toBe('pending');
    expect((await biz.get(`/v1/transactions/${second}/claims`)).body.data).toMatchObject([{ status: 'rejected' }]);
    const after = await client.get('/dashboard');
    expect(after.text).not.toContain('UTR10000');
    expect(after.text).not.toContain('UTR20000');

    // Another business cannot decide them.
    const other = await signInByLink(h, (await h.newBusiness()).business.id);
    const csrf = csrfOf((await other.get('/dashboard')).text);
    expect(
      (await other.request('POST', `/dashboard/dues/${second}/claims/${claim2}/confirm`, { _csrf: csrf })).status,
    ).toBe(404);
  });
});

describe('CSRF', () => {
  it('a POST without the form token is 403 and changes nothing', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const path = await addDue(client, { contact_name: 'Ravi Kumar', amount: '100', due_date: '2026-03-20' });
    const id = path.split('/').at(-1) as string;
    for (const [url, form] of [
      ['/dashboard/dues', { contact_name: 'X Y', amount: '1', due_date: '2026-03-20' }],
      [`${path}/mark-paid`, {}],
      [`${path}/delete`, {}],
      ['/dashboard/settings', { upi_id: 'evil@bank' }],
      ['/dashboard/developers/keys', {}],
      ['/dashboard/logout', {}],
    ] as const) {
      const res = await client.request('POST', url, { ...form, _csrf: 'not-the-token' });
      expect(res.status, url).toBe(403);
      const none = await client.request('POST', url, { ...form });
      expect(none.status, url).toBe(403);
    }
    expect((await biz.get('/v1/transactions')).body.total).toBe(1);
    expect((await biz.get(`/v1/transactions/${id}`)).body.data.status).toBe('pending');
    expect((await h.services.businesses.get(biz.business.id)).upi_id).toBeNull();
    expect(await h.services.businesses.listKeys(biz.business.id)).toHaveLength(1);
    expect((await client.get('/dashboard')).status).toBe(200);
  });
});

describe("another business's ids", () => {
  it('answer 404 on every page and action, and change nothing', async () => {
    const owner = await h.newBusiness();
    const other = await h.newBusiness();
    const due = await owner.post('/v1/transactions', {
      amount_paise: 100,
      due_date: '2026-03-20',
      contact_name: 'Ravi Kumar',
    });
    const dueId = due.body.data.id as string;
    const contactId = due.body.data.contact_id as string;
    const hook = await owner.post('/v1/webhooks', {
      url: 'https://erp.example.com/hooks',
      events: ['transaction.created'],
    });
    const keys = await h.services.businesses.listKeys(owner.business.id);
    const client = await signInByLink(h, other.business.id);
    for (const url of [
      `/dashboard/dues/${dueId}`,
      `/dashboard/contacts/${contactId}`,
      '/dashboard/dues/not-a-uuid',
      `/dashboard/dues?contact=${'x'}`,
    ]) {
      expect((await client.get(url)).status, url).toBe(404);
    }
    const csrf = csrfOf((await client.get('/dashboard')).text);
    for (const url of [
      `/dashboard/dues/${dueId}/mark-paid`,
      `/dashboard/dues/${dueId}/payments`,
      `/dashboard/dues/${dueId}/edit`,
      `/dashboard/dues/${dueId}/remind`,
      `/dashboard/dues/${dueId}/delete`,
      `/dashboard/developers/keys/${keys[0]?.id}/revoke`,
      `/dashboard/developers/webhooks/${hook.body.data.id}/test`,
      `/dashboard/developers/webhooks/${hook.body.data.id}/delete`,
    ]) {
      const res = await client.request('POST', url, { _csrf: csrf, amount: '1', due_date: '2026-03-21' });
      expect(res.status, url).toBe(404);
    }
    expect((await owner.get(`/v1/transactions/${dueId}`)).body.data).toMatchObject({
      status: 'pending',
      amount_paise: 100,
    });
    expect((await owner.get('/v1/webhooks')).body.data).toHaveLength(1);
    expect((await owner.get('/v1/summary')).status).toBe(200);
  });
});

describe('escaping', () => {
  it('shows every business- and buyer-provided string as text, never as markup', async () => {
    const evil = `<img src=x onerror="alert(1)">&'`;
    const biz = await h.newBusiness({ name: `Shop ${evil}` });
    const client = await signInByLink(h, biz.business.id);
    const path = await addDue(client, {
      contact_name: `Buyer ${evil}`,
      amount: '100',
      due_date: '2026-03-01',
      invoice_number: `INV ${evil}`.slice(0, 60),
      notes: `Note ${evil}`,
    });
    // The buyer's own words: an "I have paid" reference from the pay page.
    const payUrl = /id="pay-url" readonly value="([^"]+)"/.exec((await client.get(path)).text)?.[1] as string;
    await claimPayment(h, payUrl, `R ${evil}`);
    const contactId = (await client.get(path)).text.match(/href="\/dashboard\/contacts\/([0-9a-f-]{36})"/)?.[1];
    for (const url of [
      path,
      '/dashboard',
      '/dashboard/dues?status=all',
      '/dashboard/contacts',
      `/dashboard/contacts/${contactId}`,
      '/dashboard/settings',
    ]) {
      const page = await client.get(url);
      expect(page.status, url).toBe(200);
      expect(page.text, url).not.toContain('<img');
      expect(page.text, url).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;');
    }
    expect((await client.get(path)).text).toContain('R &lt;img src=x');
    expect((await client.get('/dashboard')).text).toContain('R &lt;img src=x');
    const search = await client.get(`/dashboard/dues?q=${encodeURIComponent('"><script>')}`);
    expect(search.text).not.toContain('"><script>');
  });
});

describe('language and formats', () => {
  it('a business created with language hi sees Hindi', async () => {
    const biz = await h.newBusiness({ language: 'hi' });
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get('/dashboard');
    expect(page.text).toContain('<html lang="hi">');
    expect(page.text).toContain('कुल बकाया');
    const path = await addDue(client, { contact_name: 'Ravi Kumar', amount: '1,23,450', due_date: '2026-03-20' });
    const due = await client.get(`${path}?ok=created`);
    expect(due.text).toContain('उधार लिख लिया गया।');
    expect(due.text).toContain('पैसे मिले: जमा लिखें');
    expect(due.text).toContain('₹1,23,450.00');
  });
});

describe('home', () => {
  it('shows totals, the aging chart and the overdue list', async () => {
    const biz = await h.newBusiness();
    await biz.post('/v1/transactions', { amount_paise: 10_000, due_date: '2026-03-20', contact_name: 'Future Buyer' });
    await biz.post('/v1/transactions', { amount_paise: 20_000, due_date: '2026-03-01', contact_name: 'Late Buyer' });
    await biz.post('/v1/transactions', {
      amount_paise: 30_000,
      due_date: '2025-11-01',
      contact_name: 'Very Late Buyer',
    });
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get('/dashboard');
    expect(page.text).toContain('₹600.00'); // outstanding
    expect(page.text).toContain('₹500.00'); // overdue
    expect(page.text).toMatch(
      /aria-label="Not yet due: ₹100.00; 1-30 days: ₹200.00; 31-60 days: ₹0.00; 61-90 days: ₹0.00; Over 90 days: ₹300.00"/,
    );
    expect(page.text).toContain('Late Buyer');
    expect(page.text).toContain('Very Late Buyer');
    expect(page.text).not.toContain('Money received that no due took');

    // Money the gateway reported for a settled due is shown, never lost (PRODUCT part 11).
    const due = (await biz.get('/v1/transactions?status=pending')).body.data[0];
    await h.store.db
      .insertInto('gateway_payments')
      .values({
        gateway_payment_id: 'pay_<b>29QQoUBi66xm2f',
        business_id: biz.business.id,
        transaction_id: due.id,
        gateway_link_id: null,
        amount_paise: 10_000,
        payment_method: 'upi',
        payment_id: null,
        unapplied_paise: 10_000,
        unapplied_reason: 'settled',
        created_at: '2026-03-10T05:00:00.000Z',
      })
      .execute();
    const withMoney = await client.get('/dashboard');
    expect(withMoney.text).toContain('Money received that no due took (1)');
    expect(withMoney.text).toContain('pay_&lt;b&gt;29QQoUBi66xm2f');
    expect(withMoney.text).toContain('the due was already paid');
  });
});

describe('settings', () => {
  it('saves the UPI id and pause-all; a bad UPI id is 400 naming upi_id and changes nothing', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const ok = await client.submit('/dashboard/settings', '/dashboard/settings', {
      upi_id: 'shop@okbank',
      reminders_paused: 'true',
    });
    expect(ok.status).toBe(303);
    let row = await h.services.businesses.get(biz.business.id);
    expect(row).toMatchObject({ upi_id: 'shop@okbank', reminders_paused: 1 });
    const bad = await client.submit('/dashboard/settings', '/dashboard/settings', { upi_id: 'not a upi' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('upi_id must be a UPI id');
    row = await h.services.businesses.get(biz.business.id);
    expect(row).toMatchObject({ upi_id: 'shop@okbank', reminders_paused: 1 });
  });
});

describe('import and export (PRODUCT part 12)', () => {
  const CSV =
    'contact_name,contact_phone,amount,due_date,invoice_number\nRavi Kumar,98765 55555,"1,234.50",2026-03-20,INV-1\nMeena Stores,,500,20/03/2026,INV-2\n';

  it('checks a file first (row errors, nothing added), then imports it once, and exports CSV', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const bad = await client.submit('/dashboard/import', '/dashboard/import', {
      csv: `${CSV}Bad Row,,12abc,2026-02-30,INV-3\n`,
      action: 'preview',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Row 3');
    expect(bad.text).toContain('amount');
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);

    const form = await client.get('/dashboard/import');
    const once = /name="once" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const fields = { _csrf: csrfOf(form.text), once, csv: CSV };
    const preview = await client.request('POST', '/dashboard/import', { ...fields, action: 'preview' });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('Ready: 2 dues would be added, 2 of them for new contacts.');
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);

    const done = await client.request('POST', '/dashboard/import', { ...fields, action: 'import' });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/dashboard/dues?ok=imported');
    const again = await client.request('POST', '/dashboard/import', { ...fields, action: 'import' });
    expect(again.status).toBe(303);
    expect((await biz.get('/v1/transactions')).body.total).toBe(2);

    const other = await h.newBusiness();
    await other.post('/v1/transactions', { amount_paise: 100, due_date: '2026-03-20', contact_name: 'Not Mine' });
    const csv = await client.get('/dashboard/export');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="dues.csv"');
    expect(csv.text).toContain('Ravi Kumar');
    expect(csv.text).toContain('INV-2');
    expect(csv.text).not.toContain('Not Mine');
    expect((await new DashboardClient(h).get('/dashboard/export')).status).toBe(303);
  });

  it('takes a file larger than the 64 KB of other forms', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const rows = Array.from({ length: 2000 }, (_, i) => `Buyer Number ${i},,${100 + i}.50,2026-03-20,INVOICE-${i}`);
    const csv = `contact_name,contact_phone,amount,due_date,invoice_number\n${rows.join('\n')}\n`;
    expect(csv.length).toBeGreaterThan(64 * 1024);
    const preview = await client.submit('/dashboard/import', '/dashboard/import', { csv, action: 'preview' });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('Ready: 2000 dues would be added');
  });
});

describe('reminders (PRODUCT part 13)', () => {
  it('settings change the reminder steps (a bad list is 400 naming reminder_steps); a due lists its steps; a contact is paused and resumed', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const bad = await client.submit('/dashboard/settings', '/dashboard/settings', {
      upi_id: '',
      reminder_steps: '7,0',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('reminder_steps must be');
    const ok = await client.submit('/dashboard/settings', '/dashboard/settings', {
      upi_id: '',
      reminder_steps: '0, 7',
    });
    expect(ok.status).toBe(303);
    expect((await h.services.businesses.get(biz.business.id)).reminder_steps).toBe('0,7');
    expect((await client.get('/dashboard/settings')).text).toContain('value="0,7"');

    const path = await addDue(client, {
      contact_name: 'Ravi Kumar',
      contact_phone: '98765 44444',
      amount: '100',
      due_date: '2026-03-20',
    });
    const page = await client.get(path);
    // Each step in words: which message, when, and what became of it.
    expect(page.text).toContain('On the due date');
    expect(page.text).toContain('Overdue reminder');
    expect(page.text).toContain('Scheduled');
    expect(page.text).not.toContain('reminder_');
    expect(page.text).toContain('20 March 2026, 10:00 am');
    expect(page.text).toContain('27 March 2026, 10:00 am');

    const contactId = /href="\/dashboard\/contacts\/([0-9a-f-]{36})"/.exec(page.text)?.[1] as string;
    const paused = await client.submit(
      `/dashboard/contacts/${contactId}`,
      `/dashboard/contacts/${contactId}/reminders`,
      { reminders_paused: 'true' },
    );
    expect(paused.status).toBe(303);
    expect((await biz.get(`/v1/contacts/${contactId}`)).body.data.reminders_paused).toBe(true);
    expect((await client.get(`/dashboard/contacts/${contactId}`)).text).toContain(
      'Reminders to this contact are paused.',
    );
    const reminded = await client.submit(path, `${path}/remind`);
    expect(reminded.location).toBe(`${path}?ok=held&reason=paused`);
    const held = (await client.get(path)).text;
    expect(held).toContain('Cancelled');
    expect(held).toContain('reminders were paused');
    await client.submit(`/dashboard/contacts/${contactId}`, `/dashboard/contacts/${contactId}/reminders`, {
      reminders_paused: 'false',
    });
    expect((await biz.get(`/v1/contacts/${contactId}`)).body.data.reminders_paused).toBe(false);
  });
});

describe("a buyer's chat replies (PRODUCT part 13)", () => {
  /** A due through the API; a phone given again makes the same buyer a contact of another business too. */
  async function apiDue(biz: TestBusiness, phone: string, name = `Buyer ${Math.random().toString(36).slice(2, 8)}`) {
    const res = await biz.post('/v1/transactions', {
      amount_paise: 75_000,
      due_date: '2026-03-12',
      contact_name: name,
      contact_phone: phone,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string; contact_id: string; contact_phone: string };
  }
  const buyerPhone = () => `+91 8${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;

  it('lists the latest replies on the contact page, newest first: the promise read and its due, or "read it yourself", as text', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const due = await apiDue(biz, buyerPhone());
    const empty = await client.get(`/dashboard/contacts/${due.contact_id}`);
    expect(empty.text).toContain('Messages from this buyer');
    expect(empty.text).toContain('No messages from this buyer yet.');

    await sendWhatsAppMessage(h, APP_SECRET, due.contact_phone, 'will pay on 15 Mar');
    h.clock.advance(60_000);
    await sendWhatsAppMessage(h, APP_SECRET, due.contact_phone, '<script>alert("x")</script> kaun?');

    const page = await client.get(`/dashboard/contacts/${due.contact_id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('No messages from this buyer yet.');
    expect(page.text).not.toContain('<script>alert');
    const unclear = page.text.indexOf('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; kaun?');
    const promised = page.text.indexOf('will pay on 15 Mar');
    expect(unclear).toBeGreaterThan(0);
    expect(promised).toBeGreaterThan(unclear);
    // Received times in the business's time zone (Asia/Kolkata: 06:00Z is 11:30 am).
    const [newest, oldest] = [page.text.slice(unclear, promised), page.text.slice(promised)];
    expect(newest).toContain('10 March 2026, 11:31 am');
    expect(newest).toContain('Not understood: read it yourself');
    expect(oldest).toContain('10 March 2026, 11:30 am');
    expect(oldest).toContain(
      `Promised to pay by 15 March 2026 <a href="/dashboard/dues/${due.id}">on the due of ₹750.00, due 12 March 2026</a>`,
    );
    expect(oldest).not.toContain('Not understood');

    // The due deleted since: the promise stays, without a link to a page that is gone.
    expect((await biz.delete(`/v1/transactions/${due.id}`)).status).toBe(200);
    const deleted = (await client.get(`/dashboard/contacts/${due.contact_id}`)).text;
    expect(deleted).toContain('Promised to pay by 15 March 2026');
    expect(deleted).not.toContain(`href="/dashboard/dues/${due.id}"`);

    // Another business's contact, or a contact of another business with the same id: 404, nothing shown.
    const other = await signInByLink(h, (await h.newBusiness()).business.id);
    const foreign = await other.get(`/dashboard/contacts/${due.contact_id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('will pay on');
  });

  it('shows a business in Hindi its replies in Hindi; the other business with that buyer sees none of them', async () => {
    const phone = buyerPhone();
    const en = await h.newBusiness();
    const hi = await h.newBusiness({ language: 'hi' });
    const enDue = await apiDue(en, phone);
    const hiDue = await apiDue(hi, phone);
    // The reply goes to the business that wrote to the buyer (docs/whatsapp.md, replies).
    expect((await hi.post(`/v1/transactions/${hiDue.id}/remind`, {})).body.data.sent).toBe(true);
    await sendWhatsAppMessage(h, APP_SECRET, hiDue.contact_phone, 'haan ji dekhte hain');
    const page = await (await signInByLink(h, hi.business.id)).get(`/dashboard/contacts/${hiDue.contact_id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('इस ग्राहक के संदेश');
    expect(page.text).toContain('haan ji dekhte hain');
    expect(page.text).toContain('समझ नहीं आया: ख़ुद पढ़ें');
    const enPage = await (await signInByLink(h, en.business.id)).get(`/dashboard/contacts/${enDue.contact_id}`);
    expect(enPage.status).toBe(200);
    expect(enPage.text).not.toContain('haan ji dekhte hain');
  });

  it("shows the due's promise with whether it was kept or broken once the promised day is over", async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const broken = await apiDue(biz, buyerPhone());
    const kept = await apiDue(biz, buyerPhone());
    await sendWhatsAppMessage(h, APP_SECRET, broken.contact_phone, 'kal');
    await sendWhatsAppMessage(h, APP_SECRET, kept.contact_phone, 'kal');
    expect((await biz.post(`/v1/transactions/${kept.id}/mark-paid`, {})).status).toBe(200);

    const waiting = (await client.get(`/dashboard/dues/${broken.id}`)).text;
    expect(waiting).toContain('Promised to pay by 11 March 2026');
    expect(waiting).not.toContain('status-overdue">broken');
    expect(waiting).not.toContain('status-paid">kept');

    h.clock.set('2026-03-11T18:31:00.000Z'); // 00:01 on the 12th in Kolkata: the promised day is over
    const after = (await client.get(`/dashboard/dues/${broken.id}`)).text;
    expect(after).toContain('Promised to pay by 11 March 2026');
    expect(after).toContain('<span class="status status-overdue">broken: not paid in full that day</span>');
    const keptPage = (await client.get(`/dashboard/dues/${kept.id}`)).text;
    expect(keptPage).toContain('<span class="status status-paid">kept</span>');
  });

  it('keeps the contact page under 100 KB with 20 dues and 21 of the longest replies, showing the 20 newest', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const phone = buyerPhone();
    let contact = '';
    let from = '';
    for (let i = 0; i < 20; i++)
      ({ contact_id: contact, contact_phone: from } = await apiDue(biz, phone, 'Meena Stores'));
    // The worst case for escaping: every character becomes &quot; (6 bytes).
    for (let i = 0; i < 21; i++) {
      h.clock.advance(1000);
      await sendWhatsAppMessage(h, APP_SECRET, from, `reply-${String(i).padStart(2, '0')} ${'"'.repeat(4000)}`);
    }
    const page = await client.get(`/dashboard/contacts/${contact}`);
    expect(page.status).toBe(200);
    expect(Buffer.byteLength(page.text)).toBeLessThan(100 * 1024);
    expect(page.text).toContain('reply-20 &quot;');
    expect(page.text).toContain('reply-01 &quot;');
    expect(page.text).not.toContain('reply-00');
    expect(page.text).toContain('&quot;…');
  });
});

describe('developers', () => {
  it('issues a key shown once that works, and revokes it', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const issued = await client.submit('/dashboard/developers', '/dashboard/developers/keys');
    expect(issued.status).toBe(200);
    const key = /<code class="key">(rk_live_[A-Za-z0-9_-]+)<\/code>/.exec(issued.text)?.[1] as string;
    expect((await h.request('GET', '/v1/summary', { headers: { 'x-api-key': key } })).status).toBe(200);
    const again = await client.get('/dashboard/developers');
    expect(again.text).not.toContain(key);
    expect((await h.services.businesses.listKeys(biz.business.id)).find((k) => key.startsWith(k.prefix))).toMatchObject(
      {
        source: 'dashboard',
      },
    );
    const keyId = (await h.services.businesses.listKeys(biz.business.id)).find((k) => key.startsWith(k.prefix))
      ?.id as string;
    const revoked = await client.submit('/dashboard/developers', `/dashboard/developers/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await h.request('GET', '/v1/summary', { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('refuses a webhook URL that is not https with 400', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const res = await client.submit('/dashboard/developers', '/dashboard/developers/webhooks', {
      url: 'http://example.com/x',
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('url');
    expect((await biz.get('/v1/webhooks')).body.data).toHaveLength(0);
  });
});

describe('page weight', () => {
  it('every page is under 100 KB', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const path = await addDue(client, { contact_name: 'Ravi Kumar', amount: '100', due_date: '2026-03-20' });
    for (const url of [...PAGES, path]) {
      const page = await client.get(url);
      expect(page.status, url).toBe(200);
      expect(Buffer.byteLength(page.text), url).toBeLessThan(100 * 1024);
    }
    const login = await new DashboardClient(h).get('/dashboard/login');
    expect(Buffer.byteLength(login.text)).toBeLessThan(100 * 1024);
  });
});

describe('odd input (PRODUCT part 16)', () => {
  it('control characters in searches and forms are a 400 naming the field, never a 500, and change nothing', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    for (const url of ['/dashboard/dues?q=ab%00cd', '/dashboard/contacts?q=ab%07cd']) {
      const res = await client.get(url);
      expect(res.status, url).toBe(400);
      expect(res.text, url).toContain('q must not contain control characters');
    }
    const due = await client.submit('/dashboard/dues/new', '/dashboard/dues', {
      contact_name: 'Ravi\u0000Kumar',
      amount: '100',
      due_date: '2026-03-20',
    });
    expect(due.status).toBe(400);
    expect(due.text).toContain('contact_name must not contain control characters');
    const hook = await client.submit('/dashboard/developers', '/dashboard/developers/webhooks', {
      url: 'https://example.com/\u0000',
    });
    expect(hook.status).toBe(400);
    const upi = await client.submit('/dashboard/settings', '/dashboard/settings', { upi_id: 'shop\u0007@okbank' });
    expect(upi.status).toBe(400);
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
    expect((await biz.get('/v1/webhooks')).body.data).toHaveLength(0);
  });
});

describe('bodies the forms never send', () => {
  it('answer 4xx pages and change nothing: JSON, a body over 64 KB', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const csrf = csrfOf((await client.get('/dashboard/dues/new')).text);
    const cookie = `dashboard_session=${client.cookies.get('dashboard_session')}`;
    const json = await h.app.inject({
      method: 'POST',
      url: '/dashboard/dues',
      headers: { cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ _csrf: csrf, contact_name: 'Ravi Kumar', amount: '100', due_date: '2026-03-20' }),
    });
    expect(json.statusCode).toBe(400);
    expect(json.headers['content-type']).toMatch(/^text\/html/);
    const big = await client.request('POST', '/dashboard/dues', {
      _csrf: csrf,
      contact_name: 'Ravi Kumar',
      amount: '100',
      due_date: '2026-03-20',
      notes: 'x'.repeat(70_000),
    });
    expect(big.status).toBe(400);
    expect(big.text).toContain('Please try again');
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
  });
});
