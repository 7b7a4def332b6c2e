import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAs } from '../src/audit/context.js';
import { recordAudit } from '../src/audit/record.js';
import { type BrowserHarness, DESKTOP, expectAccessible, PHONE, startBrowserHarness } from './helpers/chromium.js';
import { loginLink } from './helpers/dashboard.js';
import { type Harness, STORE } from './helpers/harness.js';

/**
 * The owner's Activity page and a due's History in Debian's Chromium (playwright-core), on a phone
 * (360x740) and a desktop, in English and Hindi, with axe-core; nothing wider than the screen. The
 * first screen of the Activity page is written to docs/dashboard/<phone|desktop>-<en|hi>-audit.png
 * when DOCS_SCREENSHOTS=1; full pages always go under test-artifacts/dashboard-audit.
 */
const ARTIFACTS = path.resolve('test-artifacts', 'dashboard-audit', STORE);
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

async function check(page: Page, name: string, width: number) {
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(width);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
  await expectAccessible(page, name);
}

const CASES = [
  ['phone', PHONE, 'en'],
  ['phone', PHONE, 'hi'],
  ['desktop', DESKTOP, 'en'],
  ['desktop', DESKTOP, 'hi'],
] as const;

describe('the audit log in headless Chromium', () => {
  for (const [label, viewport, language] of CASES) {
    it(`${label} ${language}: the Activity page, filtered, and a due's History`, { timeout: 120_000 }, async () => {
      const biz = await h.newBusiness({ language, name: language === 'hi' ? 'शर्मा एंड संस' : 'Sharma & Sons' });
      const due = (
        await biz.post('/v1/transactions', {
          contact_name: 'Ravi Kumar',
          amount_paise: 450_000,
          due_date: '2026-03-20',
        })
      ).body.data;
      expect(
        (await biz.post('/v1/webhooks', { url: 'https://erp.example.com/hooks', events: ['transaction.created'] }))
          .status,
      ).toBe(201);
      h.clock.advance(60_000);
      await runAs({ type: 'user', id: biz.business.id, name: language === 'hi' ? 'आशा मुनीम' : 'Asha Accountant' }, () =>
        h.store.db.transaction().execute((trx) =>
          recordAudit(trx, biz.business.id, h.clock.now(), [
            {
              action: 'transaction.updated',
              entity: 'transaction',
              entityId: due.id,
              changes: { amount_paise: [450_000, 400_000], due_date: ['2026-03-20', '2026-03-25'] },
            },
            {
              action: 'contact.updated',
              entity: 'contact',
              entityId: due.contact_id,
              changes: { reminders_paused: [false, true] },
            },
          ]),
        ),
      );
      const context = await browser.newContext({
        viewport,
        ...(label === 'phone' && { deviceScaleFactor: 2, isMobile: true, hasTouch: true }),
        locale: language === 'hi' ? 'hi-IN' : 'en-IN',
      });
      const page = await context.newPage();
      await page.goto(`${base}${new URL(await loginLink(h, biz.business.id)).pathname}`);
      await page.getByRole('link', { name: language === 'hi' ? 'गतिविधि' : 'Activity' }).click();
      await page.waitForURL(`${base}/dashboard/audit`);
      const main = await page.textContent('main');
      expect(main).toContain(language === 'hi' ? 'उधार बदला गया' : 'Due changed');
      expect(main).toContain('₹4,500.00 → ₹4,000.00');
      expect(main).toContain(language === 'hi' ? 'वेबहुक बनाया गया' : 'Webhook created');
      await check(page, `${label}-${language}-audit`, viewport.width);
      if (process.env.DOCS_SCREENSHOTS === '1') {
        await page.screenshot({ path: path.join(DOCS, `${label}-${language}-audit.png`) });
      }

      await page.getByLabel(language === 'hi' ? 'क्या बदला' : 'What changed', { exact: true }).selectOption('contact');
      await Promise.all([
        page.waitForURL(/entity=contact/),
        page.getByRole('button', { name: language === 'hi' ? 'दिखाएँ' : 'Filter' }).click(),
      ]);
      const links = await page.locator('main li > span > a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(links.length).toBeGreaterThan(0);
      for (const href of links) expect(href).toBe(`/dashboard/contacts/${due.contact_id}`);
      await check(page, `${label}-${language}-audit-buyers`, viewport.width);

      await page.goto(`${base}/dashboard/dues/${due.id}`);
      expect(await page.textContent('#history-h')).toBe(language === 'hi' ? 'इतिहास' : 'History');
      await check(page, `${label}-${language}-due-history`, viewport.width);
      await context.close();
    });
  }
});
