import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { type FakeRazorpay, razorpayEnv, startFakeRazorpay } from './helpers/fake-razorpay.js';
import { type Harness, startHarness } from './helpers/harness.js';

/** "Pay online" in a real browser (PRODUCT part 11): the form, the 303 and the gateway's page. */

let fake: FakeRazorpay;
let h: Harness;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  fake = await startFakeRazorpay();
  h = await startHarness({ now: '2026-11-24T06:00:00.000Z', env: razorpayEnv(fake) });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
  await fake?.close();
});

describe('"Pay online" in headless Chromium', () => {
  it('clicks through to the payment link, and shows the due paid once the webhook arrives', {
    timeout: 60_000,
  }, async () => {
    const biz = await h.newBusiness({ name: 'Online Traders' });
    const created = await biz.post('/v1/transactions', {
      amount_paise: 250_000,
      due_date: '2026-12-01',
      contact_name: 'Browser Buyer',
      contact_phone: '+91 98765 43210',
    });
    expect(created.status, created.text).toBe(201);
    const pagePath = new URL(created.body.data.pay_page_url).pathname;

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });

    expect((await page.goto(base + pagePath))?.status()).toBe(200);
    await Promise.all([
      page.waitForURL(`${fake.base}/i/**`, { timeout: 10_000 }),
      page.getByRole('button', { name: 'Pay online' }).click(),
    ]);
    expect(await page.locator('#checkout').textContent()).toMatch(/^Checkout plink_/);
    const link = fake.links.find((l) => page.url() === l.short_url);
    expect(link).toMatchObject({ amount: 250_000, reference_id: created.body.data.id, status: 'created' });
    expect(cspViolations).toEqual([]);

    // Razorpay tells the service; the buyer comes back to the pay page (callback_url) and sees it paid.
    const paid = await fake.deliver(
      base,
      fake.paidWebhook(link as NonNullable<typeof link>, { id: 'pay_BrowserPaid01' }),
    );
    expect(paid.status).toBe(200);
    await page.goto(base + pagePath);
    expect(await page.locator('#status').textContent()).toMatch(/^Paid on/);
    expect(await page.getByRole('button', { name: 'Pay online' }).count()).toBe(0);
    await context.close();
  });
});
