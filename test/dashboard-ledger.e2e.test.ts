import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translator } from '../src/i18n/index.js';
import { type BrowserHarness, expectAccessible, PAGE_CASES, startBrowserHarness } from './helpers/chromium.js';
import { loginLink } from './helpers/dashboard.js';
import { type Harness, STORE } from './helpers/harness.js';

/**
 * The owner's ledger in Debian's Chromium (playwright-core): each task of a khata done as the owner
 * would, on a phone (360x740, also with JavaScript off) and a desktop, in English and Hindi, with
 * axe-core on every page it passes through; screenshots under test-artifacts/dashboard-ledger.
 */
const ARTIFACTS = path.resolve('test-artifacts', 'dashboard-ledger', STORE);
const CASES = PAGE_CASES;

let served: BrowserHarness | undefined;
let h: Harness;
let browser: Browser;
let base: string;

beforeAll(async () => {
  served = await startBrowserHarness(
    { now: '2026-03-10T06:00:00.000Z', env: { PUBLIC_BASE_URL: 'http://localhost' } },
    ARTIFACTS,
  );
  ({ h, browser, base } = served);
});

afterAll(() => served?.close());

async function check(page: Page, name: string, js: boolean, width: number) {
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(width);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
  if (!js) return;
  await expectAccessible(page, name);
}

describe('the ledger in headless Chromium', () => {
  for (const [label, viewport, language, js] of CASES) {
    it(`${label} ${language}: add dues (did you mean, new buyer), money received and reversed, reminder, account link, phone, language`, {
      timeout: 240_000,
    }, async () => {
      const t = translator(language);
      const biz = await h.newBusiness({ name: 'Sharma & Sons', language });
      const first = await biz.post('/v1/transactions', {
        amount_paise: 500_000,
        due_date: '2026-03-01',
        contact_name: 'Ravi Kumar',
        contact_phone: '98765 11111',
      });
      const raviId = first.body.data.contact_id as string;
      const phone = viewport.width < 600;
      const context = await browser.newContext({
        viewport,
        deviceScaleFactor: phone ? 2 : 1,
        isMobile: phone,
        hasTouch: phone,
        javaScriptEnabled: js,
      });
      const page = await context.newPage();
      const name = (step: string) => `${label}-${language}-${step}`;
      const notice = () => page.locator('p.notice').textContent();
      await page.goto(base + new URL(await loginLink(h, biz.business.id)).pathname);
      expect(await page.locator('#collect-h').textContent()).toBe(t('home.to_collect'));
      await check(page, name('home'), js, viewport.width);

      // A due for an existing buyer, typed with a mistake: the page asks, the owner picks Ravi.
      await page.getByRole('link', { name: t('nav.dues'), exact: true }).click();
      await page.getByRole('link', { name: t('dues.add') }).click();
      await page.getByLabel(t('field.contact_name')).fill('Ravi Kumaar');
      await page.getByLabel(t('field.amount')).fill('1,200');
      await page.getByLabel(t('field.due_date')).fill('2026-03-31');
      await page.getByRole('button', { name: t('due.create') }).click();
      const didYouMean = page.getByRole('button', { name: t('dues.did_you_mean', { name: 'Ravi Kumar' }) });
      await check(page, name('did-you-mean'), js, viewport.width);
      await didYouMean.click();
      expect(await notice()).toBe(t('due.created_ok'));
      expect((await biz.get(`/v1/transactions?contact_id=${raviId}`)).body.data).toHaveLength(2);

      // A due for a new buyer: nothing close, added at once.
      await page.getByRole('link', { name: t('nav.dues'), exact: true }).click();
      await page.getByRole('link', { name: t('dues.add') }).click();
      await page.getByLabel(t('field.contact_name')).fill('Kiran General Store');
      await page.getByLabel(t('field.amount')).fill('800');
      await page.getByLabel(t('field.due_date')).fill('2026-03-31');
      await page.getByRole('button', { name: t('due.create') }).click();
      expect(await notice()).toBe(t('due.created_ok'));
      expect((await biz.get('/v1/contacts')).body.data).toHaveLength(2);

      // The buyer's page from the contacts list (by balance: Ravi first).
      await page.getByRole('link', { name: t('nav.contacts'), exact: true }).click();
      await page.locator('main .list a').first().click();
      expect(await page.locator('h1').textContent()).toBe('Ravi Kumar');
      expect(await page.locator('#balance-h').textContent()).toBe(t('ledger.to_collect', { amount: '₹6,200.00' }));
      await check(page, name('buyer'), js, viewport.width);

      // Received money.
      await page.locator('summary', { hasText: t('ledger.receive') }).click();
      await page.locator('#receive-amount').fill('5,000');
      await page.locator('#receive-method').selectOption('cash');
      await page.getByRole('button', { name: t('ledger.receive'), exact: true }).click();
      expect(await notice()).toBe(t('ledger.received'));
      expect(await page.locator('#balance-h').textContent()).toBe(t('ledger.to_collect', { amount: '₹1,200.00' }));

      // Reverse it, on a second step with a reason.
      await page.getByRole('link', { name: t('ledger.reverse') }).click();
      await check(page, name('reverse'), js, viewport.width);
      await page.getByLabel(t('reverse.reason')).fill('cheque bounced');
      await page.getByRole('button', { name: t('reverse.button') }).click();
      expect(await notice()).toBe(t('ledger.reversed_ok'));
      expect(await page.locator('main .list .status-overdue').first().textContent()).toBe(t('ledger.reversed'));
      expect(await page.locator('#balance-h').textContent()).toBe(t('ledger.to_collect', { amount: '₹6,200.00' }));

      // Send reminder.
      await page.locator('summary', { hasText: t('ledger.remind') }).click();
      await page.getByRole('button', { name: t('ledger.remind'), exact: true }).click();
      expect(await notice()).toBe(t('due.reminder_sent'));

      // Share account link: WhatsApp to Ravi with his account page.
      await page.locator('summary', { hasText: t('ledger.share') }).click();
      const share = page.getByRole('link', { name: t('ledger.share') });
      const href = new URL((await share.getAttribute('href')) as string);
      expect(href.origin + href.pathname).toBe('https://wa.me/919876511111');
      const account = (await biz.get(`/v1/contacts/${raviId}`)).body.data.account_url as string;
      expect(href.searchParams.get('text')).toContain(account);

      // Fix the buyer's phone.
      await page.locator('summary', { hasText: t('ledger.edit') }).click();
      await page.locator('#edit-phone').fill('98765 22222');
      await page.getByRole('button', { name: t('ledger.edit'), exact: true }).click();
      expect(await notice()).toBe(t('due.saved'));
      expect((await biz.get(`/v1/contacts/${raviId}`)).body.data.phone).toBe('919876522222');

      // Change the dashboard's language.
      const other = language === 'en' ? 'hi' : 'en';
      await page.getByRole('link', { name: t('nav.settings'), exact: true }).click();
      await check(page, name('settings'), js, viewport.width);
      await page.getByLabel(t('settings.language')).selectOption(other);
      await page.getByRole('button', { name: t('settings.save') }).click();
      expect(await page.locator('html').getAttribute('lang')).toBe(other);
      expect(await notice()).toBe(translator(other)('settings.saved'));
      await context.close();
    });
  }
});
