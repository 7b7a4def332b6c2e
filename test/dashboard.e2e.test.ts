import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchChromium } from './helpers/chromium.js';
import { claimPayment, lastCode, loginLink } from './helpers/dashboard.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

/**
 * The dashboard in Debian's Chromium driven by playwright-core (no browser download): sign in by
 * code and by link, the main flows on a phone (360x740) and a desktop, axe-core on every page, and
 * screenshots under test-artifacts/dashboard (the README's come from here). A missing Chromium
 * fails this file; it never skips.
 */
const ARTIFACTS = path.resolve('test-artifacts', 'dashboard', STORE);
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };
const VIEWPORTS = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const;

const APP_SECRET = 'e2e-app-secret-0123456789';

let h: Harness;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  // Plain http on loopback in this test, so the session cookie is not marked Secure.
  h = await startHarness({
    now: '2026-03-10T06:00:00.000Z',
    env: { PUBLIC_BASE_URL: 'http://localhost', WHATSAPP_APP_SECRET: APP_SECRET },
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function launch(): Promise<Browser> {
  if (browser) return browser;
  browser = await launchChromium();
  return browser;
}

async function newContext(viewport: { width: number; height: number }, javaScriptEnabled = true) {
  const phone = viewport.width < 600;
  return (await launch()).newContext({
    viewport,
    deviceScaleFactor: phone ? 2 : 1,
    isMobile: phone,
    hasTouch: phone,
    javaScriptEnabled,
  });
}

function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  return violations;
}

async function expectFitsWidth(page: Page, width: number, name: string) {
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(width);
}

async function shot(page: Page, name: string) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
}

async function seed() {
  const biz = await h.newBusiness({ name: 'Sharma & Sons' });
  await h.services.businesses.update(biz.business.id, { upiId: 'sharma.sons@okicici' });
  const rows = [
    {
      amount_paise: 12_345_050,
      due_date: '2026-03-20',
      contact_name: 'Ravi Kumar',
      contact_phone: '98765 11111',
      invoice_number: 'INV-17',
    },
    { amount_paise: 450_000, due_date: '2026-03-02', contact_name: 'Meena Stores', contact_phone: '98765 22222' },
    { amount_paise: 1_275_000, due_date: '2026-01-15', contact_name: 'Gupta Hardware' },
    { amount_paise: 899_900, due_date: '2025-11-20', contact_name: 'Patel Cement Agency' },
    { amount_paise: 210_000, due_date: '2026-02-25', contact_name: 'Ravi Kumar' },
  ];
  const phones = new Map<string, string>();
  for (const row of rows) {
    const res = await biz.post('/v1/transactions', row);
    expect(res.status).toBe(201);
    if (res.body.data.contact_phone) phones.set(row.contact_name, res.body.data.contact_phone);
  }
  // The buyer's chat replies for Ravi's contact page: a promise (on his oldest due, not the one the
  // claim test confirms), and one left for the owner to read.
  const ravi = phones.get('Ravi Kumar') as string;
  await sendWhatsAppMessage(h, APP_SECRET, ravi, 'Ji, kal tak pakka payment kar dunga');
  await sendWhatsAppMessage(h, APP_SECRET, ravi, `Bill dekha? <b>GST</b> wala https://example.com/${'x'.repeat(80)}`);
  return biz;
}

async function signInByCode(context: BrowserContext, phone: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base}/dashboard`);
  expect(page.url()).toBe(`${base}/dashboard/login`);
  await page.getByLabel('Your phone number').fill(phone);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Send code' }).click()]);
  await page.getByLabel('6-digit code').fill(lastCode(h, phone));
  await Promise.all([page.waitForURL(`${base}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()]);
  return page;
}

describe('the dashboard in headless Chromium', () => {
  it('phone 360x740 with JavaScript off: sign in by code, add a due, record a payment, mark it paid, sign out', {
    timeout: 120_000,
  }, async () => {
    const biz = await seed();
    const context = await newContext(PHONE, false);
    const page = await signInByCode(context, biz.business.phone);
    const csp = watchCsp(page);
    expect(await page.locator('h1').textContent()).toBe('Overview');
    await expectFitsWidth(page, PHONE.width, 'home');
    await shot(page, 'phone-home');

    await page.getByRole('link', { name: 'Dues', exact: true }).click();
    await page.getByRole('link', { name: 'Add a due' }).click();
    await page.getByLabel('Contact name').fill('Kiran General Store');
    await page.getByLabel('Amount (₹)').fill('2,500.50');
    await page.getByLabel('Due date').fill('2026-03-31');
    await page.getByLabel('Notes (optional)').fill('20 bags <cement>');
    await page.getByRole('button', { name: 'Add the due' }).click();
    await expect.poll(() => page.locator('p.notice').textContent()).toBe('The due was added.');
    expect(await page.locator('h1').textContent()).toBe('Kiran General Store · ₹2,500.50');
    await expectFitsWidth(page, PHONE.width, 'due');
    await shot(page, 'phone-due');

    await page.locator('#pay-amount').fill('500');
    await page.getByLabel('Paid by').selectOption('cash');
    await page.getByRole('button', { name: 'Record payment' }).click();
    expect(await page.locator('p.notice').textContent()).toBe('The payment was recorded.');
    // asked again on a page of its own (PRODUCT part 20)
    await page.getByRole('link', { name: 'Mark fully paid' }).click();
    expect(await page.locator('h1').textContent()).toBe('Mark this due fully paid?');
    await page.getByRole('button', { name: 'Mark fully paid' }).click();
    expect(await page.locator('p.notice').textContent()).toBe('Marked as paid.');
    expect(await page.locator('.status-paid').first().textContent()).toBe('Paid');

    await page.getByRole('link', { name: 'Dues', exact: true }).click();
    await expectFitsWidth(page, PHONE.width, 'dues');
    await shot(page, 'phone-dues');
    await page.getByRole('link', { name: 'Contacts', exact: true }).click();
    await page.getByRole('link', { name: 'Ravi Kumar' }).click();
    expect(await page.locator('h1').textContent()).toBe('Ravi Kumar');
    await expectFitsWidth(page, PHONE.width, 'contact');
    await shot(page, 'phone-contact');

    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(page.url()).toBe(`${base}/dashboard/login`);
    await page.goto(`${base}/dashboard/dues`);
    expect(page.url()).toBe(`${base}/dashboard/login`);
    expect(csp).toEqual([]);
    await context.close();
  });

  for (const [label, viewport] of VIEWPORTS) {
    it(`${label}: sign in by link, every page passes axe-core (no serious or critical), copy and WhatsApp share`, {
      timeout: 180_000,
    }, async () => {
      const biz = await seed();
      const context = await newContext(viewport);
      const page = await context.newPage();
      const csp = watchCsp(page);
      await page.goto(`${base}/dashboard/login`);
      await expectAccessible(page, 'login');
      if (label === 'desktop') await shot(page, `${label}-login`);

      await page.goto(base + new URL(await loginLink(h, biz.business.id)).pathname);
      expect(page.url()).toBe(`${base}/dashboard`);

      const due = await biz.get('/v1/transactions?status=overdue&limit=1');
      const dueId = due.body.data[0].id as string;
      const contacts = await biz.get('/v1/contacts?search=Ravi');
      const contactId = contacts.body.data[0].id as string;
      for (const [name, url] of [
        ['home', '/dashboard'],
        ['dues', '/dashboard/dues?status=all'],
        ['new-due', '/dashboard/dues/new'],
        ['due', `/dashboard/dues/${dueId}`],
        ['contacts', '/dashboard/contacts'],
        ['contact', `/dashboard/contacts/${contactId}`],
        ['import', '/dashboard/import'],
        ['settings', '/dashboard/settings'],
        ['developers', '/dashboard/developers'],
      ] as const) {
        const res = await page.goto(base + url);
        expect(res?.status(), name).toBe(200);
        await expectAccessible(page, name);
        await expectFitsWidth(page, viewport.width, name);
        if (label === 'desktop' || ['home', 'dues', 'due'].includes(name)) await shot(page, `${label}-${name}`);
      }

      // The copy button appears only with JavaScript, and copies the pay link.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      await page.goto(`${base}/dashboard/dues/${dueId}`);
      const payUrl = await page.locator('#pay-url').inputValue();
      await page.getByRole('button', { name: 'Copy link' }).click();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(payUrl);
      const wa = await page.getByRole('link', { name: 'Share on WhatsApp' }).getAttribute('href');
      expect(new URL(wa as string).searchParams.get('text')).toContain(payUrl);

      // A key issued here is shown once and works for the API.
      await page.goto(`${base}/dashboard/developers`);
      await page.getByRole('button', { name: 'Issue a new API key' }).click();
      const key = (await page.locator('code.key').textContent()) as string;
      expect((await h.request('GET', '/v1/summary', { headers: { 'x-api-key': key } })).status).toBe(200);
      await expectAccessible(page, 'developers with a new key');
      expect(csp).toEqual([]);
      await context.close();
    });
  }

  for (const [label, viewport] of VIEWPORTS) {
    it(`${label}: search and filter, change, remind, delete, confirm a claim, settings, revoke a key`, {
      timeout: 180_000,
    }, async () => {
      const biz = await seed();
      const due = await biz.get('/v1/transactions?status=overdue&limit=1');
      const claimed = due.body.data[0];
      await claimPayment(h, claimed.pay_page_url, 'UTR-998877');
      const context = await newContext(viewport);
      const page = await context.newPage();
      const csp = watchCsp(page);
      await page.goto(base + new URL(await loginLink(h, biz.business.id)).pathname);

      // Home shows the claim; its due page confirms it.
      await page
        .getByRole('region', { name: 'Payments reported by buyers' })
        .getByRole('link', { name: claimed.contact_name })
        .click();
      await page.getByRole('button', { name: 'Confirm: record the balance as paid' }).click();
      expect(await page.locator('p.notice').textContent()).toBe('The claim was confirmed and the payment recorded.');
      expect((await biz.get(`/v1/transactions/${claimed.id}`)).body.data.status).toBe('paid');

      // Search and filter.
      await page.getByRole('link', { name: 'Dues', exact: true }).click();
      await page.locator('summary', { hasText: 'Search and filter' }).click();
      await page.getByLabel('Search by contact name').fill('gupta');
      await page.getByLabel('Status').selectOption('overdue');
      await page.getByRole('button', { name: 'Filter' }).click();
      expect(page.url()).toContain('q=gupta');
      expect(await page.locator('main .list li').count()).toBe(1);
      if (label === 'desktop') await shot(page, `${label}-dues-filtered`);

      // Change the due, remind, then delete it.
      await page.getByRole('link', { name: 'Gupta Hardware' }).click();
      await page.locator('#amount').fill('13,000');
      await page.getByRole('button', { name: 'Save changes' }).click();
      expect(await page.locator('p.notice').textContent()).toBe('Saved.');
      expect(await page.locator('h1').textContent()).toBe('Gupta Hardware · ₹13,000.00');
      await page.getByRole('button', { name: 'Send a reminder now' }).click();
      expect(await page.locator('main p[role=status]').textContent()).toBe(
        'The reminder was not sent: the contact has no phone number.',
      );
      await page.getByRole('link', { name: 'Delete this due' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      expect(await page.locator('p.notice').textContent()).toBe('The due was deleted.');

      // Contacts search.
      await page.getByRole('link', { name: 'Contacts', exact: true }).click();
      await page.getByLabel('Search by name').fill('meena');
      await page.getByRole('button', { name: 'Filter' }).click();
      expect(await page.locator('main .list li').count()).toBe(1);

      // Settings.
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByLabel('UPI id (shown on the pay page)').fill('sharma@okhdfc');
      await page.getByLabel('Pause all reminders').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      expect(await page.locator('p.notice').textContent()).toBe('Settings saved.');
      expect(await h.services.businesses.get(biz.business.id)).toMatchObject({
        upi_id: 'sharma@okhdfc',
        reminders_paused: 1,
      });

      // Import: a file picked with JavaScript, checked (its bad row named), fixed, imported.
      await page.getByRole('link', { name: 'Import', exact: true }).click();
      const header = 'contact_name,amount,due_date,invoice_number\n';
      await page.getByLabel('Choose a file').setInputFiles({
        name: 'dues.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(`${header}Kiran Traders,750,2026-04-01,IMP-1\nBad Row,12abc,2026-04-01,IMP-2\n`),
      });
      await expect.poll(() => page.locator('#csv').inputValue()).toContain('Kiran Traders');
      await page.getByRole('button', { name: 'Check the file' }).click();
      expect(await page.locator('main .list').textContent()).toContain('Row 2');
      await page.locator('#csv').fill(`${header}Kiran Traders,750,2026-04-01,IMP-1\n`);
      await page.getByRole('button', { name: 'Check the file' }).click();
      expect(await page.locator('p.notice').textContent()).toContain('Ready: 1 dues would be added');
      if (label === 'desktop') await shot(page, `${label}-import-checked`);
      await page.getByRole('button', { name: 'Import 1 dues' }).click();
      expect(await page.locator('p.notice').textContent()).toBe('The dues were imported.');
      expect(await page.locator('main .list').textContent()).toContain('Kiran Traders');

      // Revoke the business's first key.
      await page.getByRole('link', { name: 'Developers', exact: true }).click();
      await page.getByRole('button', { name: 'Revoke' }).first().click();
      expect((await biz.get('/v1/summary')).status).toBe(401);
      await expectFitsWidth(page, viewport.width, 'developers');
      expect(csp).toEqual([]);
      await context.close();
    });
  }
});
