import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { type Harness, startHarness } from './helpers/harness.js';

/**
 * /docs in a real browser, opened on two host names of the same server while PUBLIC_BASE_URL
 * names a third: "Try it out" calls the host the page was opened on and gets its answer.
 */
let h: Harness;
let browser: Browser | undefined;
let port: number;

beforeAll(async () => {
  h = await startHarness();
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  port = (h.app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('/docs in headless Chromium', () => {
  it('"Try it out" works from 127.0.0.1 and from localhost', { timeout: 90_000 }, async () => {
    expect(h.config.publicBaseUrl).toBe('https://pay.example.test');
    const biz = await h.newBusiness({ name: 'Docs Traders' });
    browser = await launchChromium();
    for (const host of ['127.0.0.1', 'localhost']) {
      const page = await browser.newPage();
      const res = await page.goto(`http://${host}:${port}/docs`);
      expect(res?.status()).toBe(200);

      await page.locator('button.authorize').first().click({ timeout: 20_000 });
      await page.locator('.auth-container input').first().fill(biz.apiKey);
      await page.locator('.auth-btn-wrapper button.authorize').first().click();
      await page.locator('button.btn-done').first().click();

      const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/v1/me"]') }).first();
      await operation.locator('.opblock-summary').first().click();
      await operation.locator('.try-out__btn').click();
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
      await status.waitFor({ timeout: 20_000 });
      expect(((await status.textContent()) ?? '').trim(), host).toBe('200');
      expect(await operation.locator('.live-responses-table').first().textContent()).toContain('Docs Traders');
      expect(await operation.locator('.request-url').first().textContent()).toContain(`http://${host}:${port}/v1/me`);
      await page.close();
    }
  });
});
