import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translator } from '../src/i18n/index.js';
import { type BrowserHarness, expectAccessible, PAGE_CASES, startBrowserHarness } from './helpers/chromium.js';
import { loginLink } from './helpers/dashboard.js';
import { type Harness, STORE } from './helpers/harness.js';

/**
 * "Merge two buyers" in Debian's Chromium (playwright-core), as the owner does it from the buyer's
 * page: find the other buyer, confirm on the second step, land on the one ledger. On a phone
 * (360x740, also with JavaScript off) and a desktop, in English and Hindi, axe-core on each page;
 * screenshots under test-artifacts/contact-merge (and, with DOCS_SCREENSHOTS=1 on SQLite, the
 * docs' copies in docs/dashboard/).
 */
const ARTIFACTS = path.resolve('test-artifacts', 'contact-merge', STORE);
const DOCS = path.resolve('docs', 'dashboard');

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

async function check(page: Page, label: string, language: string, step: string, js: boolean, width: number) {
  const name = `${label}-${language}-${step}`;
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(width);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
  // The docs show the two steps (the ledger after is the buyer page's own screenshot).
  if (process.env.DOCS_SCREENSHOTS && STORE === 'sqlite' && js && step !== 'merged') {
    await page.screenshot({ path: path.join(DOCS, `${name}.png`) });
  }
  if (!js) return;
  await expectAccessible(page, name);
}

describe('merge two buyers in headless Chromium', () => {
  for (const [label, viewport, language, js] of PAGE_CASES) {
    it(`${label} ${language}: find the other buyer, confirm, one ledger`, { timeout: 240_000 }, async () => {
      const t = translator(language);
      const biz = await h.newBusiness({ name: 'Sharma & Sons', language });
      const kept = await biz.post('/v1/transactions', {
        amount_paise: 500_000,
        due_date: '2026-03-01',
        contact_name: 'Ravi Kumar',
        contact_phone: '98765 11111',
      });
      const typo = await biz.post('/v1/transactions', {
        amount_paise: 120_000,
        due_date: '2026-03-20',
        contact_name: 'Ravi Kumaar',
      });
      const keptId = kept.body.data.contact_id as string;
      const phone = viewport.width < 600;
      const context = await browser.newContext({
        viewport,
        deviceScaleFactor: phone ? 2 : 1,
        isMobile: phone,
        hasTouch: phone,
        javaScriptEnabled: js,
      });
      const page = await context.newPage();
      await page.goto(base + new URL(await loginLink(h, biz.business.id)).pathname);
      await page.goto(`${base}/dashboard/contacts/${keptId}`);
      expect(await page.locator('h1').textContent()).toBe('Ravi Kumar');

      // First step: the form on the buyer's page, then the buyer found by name.
      await page.locator('summary', { hasText: t('merge.title') }).click();
      await page.locator('#merge-q').fill('Kumaar');
      await page.getByRole('button', { name: t('merge.find'), exact: true }).click();
      expect(await page.locator('h1').textContent()).toBe(t('merge.title'));
      await check(page, label, language, 'merge', js, viewport.width);
      await page.getByRole('link', { name: 'Ravi Kumaar', exact: true }).click();

      // Second step: what moves and the balance after; nothing has changed until it is sent.
      expect(await page.locator('h1').textContent()).toBe(t('merge.confirm_title'));
      expect(await page.locator('main form strong.balance').textContent()).toBe(
        t('ledger.to_collect', { amount: '₹6,200.00' }),
      );
      await check(page, label, language, 'merge-confirm', js, viewport.width);
      expect((await biz.get('/v1/contacts')).body.data).toHaveLength(2);
      await page.getByRole('button', { name: t('merge.button'), exact: true }).click();

      // One buyer, one ledger, the whole balance.
      expect(await page.locator('p.notice').textContent()).toBe(t('merge.done'));
      expect(await page.locator('h1').textContent()).toBe('Ravi Kumar');
      expect(await page.locator('#balance-h').textContent()).toBe(t('ledger.to_collect', { amount: '₹6,200.00' }));
      const contacts = (await biz.get('/v1/contacts')).body.data as { id: string }[];
      expect(contacts.map((c) => c.id)).toEqual([keptId]);
      expect((await biz.get(`/v1/transactions/${typo.body.data.id}`)).body.data.contact_id).toBe(keptId);
      await check(page, label, language, 'merged', js, viewport.width);
      await context.close();
    });
  }
});
