import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from './helpers/crawl.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { seedPages } from './helpers/seed-pages.js';

/**
 * Pages stay light: every dashboard and buyer page, in English and in Hindi, with full lists, is
 * at most 60 KB on the wire. A page is one response (its style and script are inline, nothing else
 * loads), so its body is all a phone downloads. Pages are found by following links from Home.
 */
const LIMIT_BYTES = 60 * 1024;
const APP_SECRET = 'weight-app-secret-0123456789';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z', env: { WHATSAPP_APP_SECRET: APP_SECRET } });
});
afterAll(() => h?.close());

describe('page weight', () => {
  for (const language of ['en', 'hi'] as const) {
    it(`${language}: every page is at most 60 KB, and loads nothing else`, { timeout: 120_000 }, async () => {
      const seeded = await seedPages(h, APP_SECRET, language, 40);
      const pages = await crawl(seeded.client, ['/dashboard', seeded.payPath, seeded.accountPath]);
      expect(pages.size).toBeGreaterThanOrEqual(10);
      const heavy: string[] = [];
      for (const [url, page] of pages) {
        const bytes = Buffer.byteLength(page.text);
        if (bytes > LIMIT_BYTES) heavy.push(`${url}: ${bytes} bytes`);
        // Nothing else is fetched: no stylesheet, script, image or font by URL.
        expect(page.text, url).not.toMatch(/<link[^>]+rel="stylesheet"|<script[^>]+src=|<img[^>]+src="(?!data:)/);
      }
      expect(heavy).toEqual([]);
    });
  }
});
