import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOME_NAMES } from '../src/dashboard/http.js';
import { HOLD_REASONS } from '../src/reminders/protections.js';
import { crawl } from './helpers/crawl.js';
import type { Page } from './helpers/dashboard.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { leftoverEnglish } from './helpers/page-words.js';
import { seedPages } from './helpers/seed-pages.js';

/**
 * Every page a person sees, in Hindi, with no English word left but names of things (UPI,
 * WhatsApp, ...) and the data itself: the pages are found by following links from Home (so a page
 * added later is read too), plus every outcome message, form error and error page. The data is
 * written in Devanagari, so any Latin word left is the page's own.
 */
const APP_SECRET = 'language-app-secret-0123456789';
const NOW = '2026-03-10T06:00:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW, env: { WHATSAPP_APP_SECRET: APP_SECRET } });
});
afterAll(() => h?.close());

function expectHindi(pages: Map<string, Pick<Page, 'text'>>, data: string[]) {
  const problems: string[] = [];
  for (const [url, page] of pages) {
    if (!page.text.includes('<html lang="hi">')) problems.push(`${url}: not <html lang="hi">`);
    for (const word of leftoverEnglish(page.text, data)) problems.push(`${url}: ${word}`);
  }
  expect(problems).toEqual([]);
}

describe('every page in Hindi', () => {
  it('the pages reached by following links from Home, the pay page and the buyer pages', {
    timeout: 120_000,
  }, async () => {
    const { client, payPath, accountPath, data } = await seedPages(h, APP_SECRET, 'hi');
    const pages = await crawl(client, ['/dashboard', payPath, accountPath]);
    const paths = [...pages.keys()].map((u) => u.replace(/[0-9a-f-]{36}|\/pay\/[\w-]+/g, ':id'));
    for (const reached of [
      '/dashboard',
      '/dashboard/dues',
      '/dashboard/contacts',
      '/dashboard/settings',
      '/dashboard/import',
      '/dashboard/developers',
      '/dashboard/dues/:id',
      '/dashboard/contacts/:id',
    ]) {
      expect(paths, reached).toContain(reached);
    }
    expect(paths.some((p) => p.startsWith(':id'))).toBe(true);
    expectHindi(pages, data);
  });

  it('every outcome, held reminder, form refusal and error page', { timeout: 120_000 }, async () => {
    const { client, dueId, payPath, data } = await seedPages(h, APP_SECRET, 'hi');
    const pages = new Map<string, Pick<Page, 'text' | 'status'>>();
    const due = `/dashboard/dues/${dueId}`;
    for (const ok of OUTCOME_NAMES) pages.set(`${due}?ok=${ok}`, await client.get(`${due}?ok=${ok}`));
    for (const reason of [...HOLD_REASONS, 'channel_error', 'failed']) {
      pages.set(`held: ${reason}`, await client.get(`${due}?ok=held&reason=${reason}`));
    }
    const refused = async (name: string, pageUrl: string, action: string, fields: Record<string, string>) => {
      const res = await client.submit(pageUrl, action, fields);
      expect(res.status, `${name}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.text, name).toMatch(/class="error"/);
      pages.set(name, res);
    };
    await refused('new due: bad amount', '/dashboard/dues/new', '/dashboard/dues', {
      contact_name: 'किरण',
      amount: '12abc',
      due_date: '2026-03-31',
    });
    await refused('new due: no name', '/dashboard/dues/new', '/dashboard/dues', {
      contact_name: ' ',
      amount: '100',
      due_date: '2026-03-31',
    });
    await refused('new due: bad date', '/dashboard/dues/new', '/dashboard/dues', {
      contact_name: 'किरण',
      amount: '100',
      due_date: '31-31-2026',
    });
    await refused('payment over the balance', due, `${due}/payments`, { amount: '99,99,999', payment_method: 'cash' });
    await refused('edit below paid', due, `${due}/edit`, { amount: 'x', due_date: '2026-03-31' });
    await refused('settings: bad UPI id', '/dashboard/settings', '/dashboard/settings', { upi_id: 'not a vpa' });
    await refused('settings: bad steps', '/dashboard/settings', '/dashboard/settings', { reminder_steps: 'abc' });
    await refused('webhook: bad URL', '/dashboard/developers', '/dashboard/developers/webhooks', { url: 'http://x' });
    await refused('import: bad rows', '/dashboard/import', '/dashboard/import', {
      csv: 'contact_name,amount,due_date\nकिरण,12abc,2026-04-01\n,100,2026-04-01\n',
      action: 'preview',
    });
    await refused('import: no header', '/dashboard/import', '/dashboard/import', { csv: 'x\n', action: 'preview' });
    const preview = await client.submit('/dashboard/import', '/dashboard/import', {
      csv: 'contact_name,amount,due_date\nकिरण ट्रेडर्स,750,2026-04-01\n',
      action: 'preview',
    });
    expect(preview.status).toBe(200);
    pages.set('import: preview', preview);
    pages.set('not found', await client.get('/dashboard/dues/0190a0a0-0000-7000-8000-000000000000'));
    pages.set('unknown page', await client.get('/dashboard/nothing-here'));
    pages.set('expired form', await client.request('POST', `${due}/remind`, { _csrf: 'stale' }));
    const hindiBrowser = { 'accept-language': 'hi-IN,hi;q=0.9,en;q=0.8' };
    pages.set('sign-in', await h.request('GET', '/dashboard/login', { headers: hindiBrowser }));
    pages.set('sign-in link used', await h.request('GET', '/dashboard/login/nope', { headers: hindiBrowser }));
    pages.set('pay link unknown', await h.request('GET', '/pay/nope', { headers: hindiBrowser }));
    pages.set('root', await h.request('GET', '/', { headers: hindiBrowser }));
    pages.set(
      'pay: bad reference',
      await h.request('POST', `${payPath}/claim`, {
        payload: `reference=${'x'.repeat(61)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expectHindi(pages, data);
  });

  it('the check finds an English word left on a page, and passes names, data and links', () => {
    const page = '<html lang="hi"><title>बकाया</title><p>कुल Outstanding ₹1,234.50</p><code>contact_name</code>';
    expect(leftoverEnglish(page).map((w) => w.split(' ')[0])).toEqual(['Outstanding']);
    const names =
      '<p>Sharma & Sons: UPI ID shop@okhdfc, WhatsApp, https://a.example/x INV-17 रवि</p><b aria-label="Close">x</b>';
    expect(leftoverEnglish(names, ['Sharma & Sons']).map((w) => w.split(' ')[0])).toEqual(['x', 'Close']);
  });
});
