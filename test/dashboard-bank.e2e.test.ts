import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchChromium, PAGE_CASES } from './helpers/chromium.js';
import { loginLink } from './helpers/dashboard.js';
import { newDue } from './helpers/dues.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';

/**
 * The bank page in Debian's Chromium (playwright-core): upload a bank's CSV export with the file
 * picker, see what was matched, accept a suggestion with one tap and see it matched; on a phone
 * (360x740, and once with JavaScript off: the page needs none) and a desktop, in English and Hindi, axe-core on
 * every state, screenshots under test-artifacts/dashboard-bank.
 */
const ARTIFACTS = path.resolve('test-artifacts', 'dashboard-bank', STORE);
const HDFC = readFileSync(new URL('./fixtures/bank/hdfc.csv', import.meta.url));

const CASES = PAGE_CASES;

/** What the owner reads and taps, in each language. */
const WORDS = {
  en: {
    nav: 'Bank',
    file: 'Statement file (CSV)',
    upload: 'Upload and match',
    uploaded: 'Read 5 lines: 4 new money received, 2 matched, 1 with suggestions, 1 not matched, 0 uploaded before.',
    accept: /^Accept: Gupta and Sons, account/,
    applied: "The money was recorded in the buyer's account.",
    waiting: 'Money received to check (1)',
    home: 'Bank: 2 money received to check',
  },
  hi: {
    nav: 'बैंक',
    file: 'स्टेटमेंट फ़ाइल (CSV)',
    upload: 'अपलोड करें और मिलाएँ',
    uploaded: '5 लाइनें पढ़ी गईं: 4 नई जमा रकम, 2 मिलाई गईं, 1 के सुझाव हैं, 1 नहीं मिलीं, 0 पहले अपलोड हो चुकी थीं।',
    accept: /^स्वीकार करें: Gupta and Sons, खाता/,
    applied: 'रकम ग्राहक के खाते में दर्ज हो गई।',
    waiting: 'जाँचने के लिए जमा रकम (1)',
    home: 'बैंक: 2 जमा रकम जाँचनी है',
  },
} as const;

let h: Harness;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z', env: { PUBLIC_BASE_URL: 'http://localhost' } });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function check(page: Page, width: number, name: string, javaScript: boolean) {
  if (javaScript) await expectAccessible(page, name);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(width);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
}

describe('the bank page in headless Chromium', () => {
  for (const [label, viewport, language, javaScript] of CASES) {
    it(`${label} ${viewport.width}x${viewport.height}, ${language}${javaScript ? '' : ', JavaScript off'}: upload a statement, accept a suggestion with one tap, see it matched`, {
      timeout: 120_000,
    }, async () => {
      const words = WORDS[language];
      const biz = await h.newBusiness({ name: 'Sharma Traders', language });
      await newDue(biz, { contact_name: 'Ravi Kumar', amount_paise: 1_234_500, invoice_number: 'INV-1001' });
      await newDue(biz, { contact_name: 'Mehta Stores', amount_paise: 20_000_000, invoice_number: 'INV-1002' });
      const gupta = await newDue(biz, { contact_name: 'Gupta and Sons', amount_paise: 700_000 });

      browser ??= await launchChromium();
      const phone = viewport.width < 600;
      const context = await browser.newContext({
        viewport,
        deviceScaleFactor: phone ? 2 : 1,
        isMobile: phone,
        hasTouch: phone,
        javaScriptEnabled: javaScript,
      });
      const page = await context.newPage();
      const csp: string[] = [];
      page.on('console', (m) => {
        if (/Content.Security.Policy/i.test(m.text())) csp.push(m.text());
      });
      await page.goto(base + new URL(await loginLink(h, biz.business.id)).pathname);
      expect(page.url()).toBe(`${base}/dashboard`);

      await page.getByRole('link', { name: words.nav, exact: true }).click();
      expect(page.url()).toBe(`${base}/dashboard/bank`);
      await check(page, viewport.width, `${label}-${language}-empty`, javaScript);

      await page.getByLabel(words.file).setInputFiles({ name: 'hdfc.csv', mimeType: 'text/csv', buffer: HDFC });
      await page.getByRole('button', { name: words.upload }).click();
      expect(await page.locator('p.notice').textContent()).toBe(words.uploaded);
      await check(page, viewport.width, `${label}-${language}-uploaded`, javaScript);

      await page.goto(`${base}/dashboard`);
      expect(await page.getByRole('link', { name: words.home }).count()).toBe(1);
      await page.getByRole('link', { name: words.home }).click();

      await page.getByRole('button', { name: words.accept }).click();
      expect(page.url()).toBe(`${base}/dashboard/bank?ok=applied`);
      expect(await page.locator('p.notice').textContent()).toBe(words.applied);
      expect(await page.locator('#waiting-h').textContent()).toBe(words.waiting);
      const matched = page.locator('section[aria-labelledby=matched-h] li', { hasText: 'GUPTA AND SONS' });
      expect(await matched.getByRole('link', { name: 'Gupta and Sons' }).getAttribute('href')).toBe(
        `/dashboard/contacts/${gupta.contact_id}`,
      );
      await check(page, viewport.width, `${label}-${language}-accepted`, javaScript);

      const credits = await biz.get('/v1/bank-credits?status=matched');
      expect(credits.body.data.map((c: { matched_by: string }) => c.matched_by).sort()).toEqual([
        'invoice_number',
        'invoice_number',
        'owner',
      ]);
      expect(csp).toEqual([]);
      await context.close();
    });
  }
});
