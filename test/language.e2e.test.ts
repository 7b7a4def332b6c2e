import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, expectAccessible, launchChromium, PHONE } from './helpers/chromium.js';
import { crawl } from './helpers/crawl.js';
import { loginLink } from './helpers/dashboard.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';
import { seedPages } from './helpers/seed-pages.js';

/**
 * Every page in Debian's Chromium (playwright-core), in English and in Hindi, on a 360x740 phone
 * and a desktop: each page found by following links from Home answers, passes axe-core (no serious
 * or critical violation), is no wider than the screen, and is shot under test-artifacts/language.
 * With DOCS_SCREENSHOTS=1 (SQLite run) the shots of each kind of page are also written to
 * docs/dashboard/, the screenshots the docs show.
 */
const ARTIFACTS = path.resolve('test-artifacts', 'language', STORE);
const DOCS = path.resolve('docs', 'dashboard');
const APP_SECRET = 'language-e2e-secret-0123456789';
const VIEWPORTS = [
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const;

let h: Harness;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  h = await startHarness({
    now: '2026-03-10T06:00:00.000Z',
    env: { PUBLIC_BASE_URL: 'http://localhost', WHATSAPP_APP_SECRET: APP_SECRET },
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/**
 * A page's kind as a file name: its path under /dashboard with each id dropped and the word before
 * it made singular (`/dashboard/contacts/<id>/claims/<id>/confirm` is `contact-claim-confirm`);
 * Home is `home`, the buyer's pages `pay` and `account`.
 */
function nameOf(url: string): string {
  const p = new URL(url, 'http://pages.test').pathname;
  if (p === '/dashboard') return 'home';
  if (p.startsWith('/pay/')) return 'pay';
  if (p.startsWith('/a/')) return 'account';
  const words: string[] = [];
  for (const part of p.replace(/^\/dashboard\//, '').split('/')) {
    if (/^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(part)) words.push((words.pop() ?? '').replace(/s$/, ''));
    else words.push(part.replace(/\.csv$/, ''));
  }
  return words.join('-');
}

/** The elements whose content sticks out of their box (the innermost last), for the failure's message. */
const OVERFLOWING = `[...document.querySelectorAll('body *')].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible').slice(-4).map((e) => e.tagName.toLowerCase() + ' ' + e.scrollWidth + '>' + e.clientWidth + ': ' + (e.textContent || '').slice(0, 80))`;

describe('every page in Chromium, both languages, phone and desktop', () => {
  for (const language of ['en', 'hi'] as const) {
    for (const [label, viewport] of VIEWPORTS) {
      it(`${label}, ${language}`, { timeout: 240_000 }, async () => {
        const seeded = await seedPages(h, APP_SECRET, language, 25);
        const pages = [...(await crawl(seeded.client, ['/dashboard', seeded.payPath, seeded.accountPath])).keys()];
        const phone = viewport.width < 600;
        const context = await (browser as Browser).newContext({
          viewport,
          deviceScaleFactor: 1,
          isMobile: phone,
          hasTouch: phone,
          locale: `${language}-IN`,
          extraHTTPHeaders: { 'accept-language': `${language}-IN,${language};q=0.9` },
        });
        const page = await context.newPage();
        const shots = new Set<string>();
        const shoot = async (name: string) => {
          const file = path.join(ARTIFACTS, `${label}-${language}-${name}.png`);
          await page.screenshot({ path: file, fullPage: true });
          if (process.env.DOCS_SCREENSHOTS && STORE === 'sqlite' && !shots.has(name)) {
            // The docs' copy shows the first screen, as a person opening the page sees it.
            await page.screenshot({ path: path.join(DOCS, `${label}-${language}-${name}.png`) });
          }
          shots.add(name);
          expect(existsSync(file)).toBe(true);
        };
        await page.goto(`${base}/dashboard/login`);
        await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(language);
        await shoot('login');
        await page.goto(base + new URL(await loginLink(h, seeded.biz.business.id)).pathname);
        expect(page.url()).toBe(`${base}/dashboard`);
        for (const url of pages) {
          const res = await page.goto(base + url);
          expect(res?.status(), url).toBe(200);
          expect(await page.locator('html').getAttribute('lang'), url).toBe(language);
          await shoot(nameOf(url));
          await expectAccessible(page, url);
          const width = await page.evaluate<number>('document.documentElement.scrollWidth');
          if (width > viewport.width) {
            expect.fail(`${url} is ${width} px wide: ${JSON.stringify(await page.evaluate<string[]>(OVERFLOWING))}`);
          }
        }
        expect(shots.size).toBeGreaterThanOrEqual(10);
        await context.close();
      });
    }
  }
});
