import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';

/**
 * The pay page in a real browser: Debian's Chromium driven by playwright-core (no browser
 * download). A missing Chromium fails this file; it never skips (.ci/run installs it).
 */
const ARTIFACTS = path.resolve('test-artifacts');
// Both store projects run this file at once: one screenshot each, so neither overwrites the other.
const SCREENSHOT = path.join(ARTIFACTS, STORE === 'sqlite' ? 'paypage.png' : `paypage-${STORE}.png`);

/** The little of the DOM these checks use (the project compiles without the DOM library). */
type Window = { getComputedStyle(element: unknown): { fontWeight: string } };

let h: Harness;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z' });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** One browser per file, launched inside the test so that a missing Chromium fails it. */
async function launch(): Promise<Browser> {
  browser = await launchChromium();
  return browser;
}

describe('the pay page in headless Chromium', () => {
  it('shows the QR and UPI link on a phone, works without JavaScript, and records a claim', {
    timeout: 60_000,
  }, async () => {
    const biz = await h.newBusiness({ name: 'Sharma & Sons' });
    await h.services.businesses.update(biz.business.id, { upiId: 'sharma.sons@okicici' });
    const created = await biz.post('/v1/transactions', {
      amount_paise: 12_345_050,
      due_date: '2026-03-20',
      contact_name: 'Ravi Kumar',
      invoice_number: 'INV-2026-17',
    });
    expect(created.status, created.text).toBe(201);
    const pagePath = new URL(created.body.data.pay_page_url).pathname;

    // A phone-sized screen, and no JavaScript at all: the page must not need it.
    const context = await (await launch()).newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });

    const res = await page.goto(base + pagePath);
    expect(res?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Sharma & Sons');
    expect(await page.locator('#amount').textContent()).toBe('₹1,23,450.50');
    expect(await page.locator('#status').textContent()).toBe('Pending');

    // The stylesheet is allowed by its hash in the CSP: had the hash been wrong, no style would apply.
    expect(
      await page.locator('#amount').evaluate((e) => (globalThis as unknown as Window).getComputedStyle(e).fontWeight),
    ).toBe('700');

    const link = page.locator('#upi-link');
    expect(await link.getAttribute('href')).toBe(
      `upi://pay?pa=sharma.sons@okicici&pn=Sharma%20%26%20Sons&am=123450.50&cu=INR&tn=${created.body.data.payment_reference}%20Invoice%20INV-2026-17`,
    );
    expect(await link.isVisible()).toBe(true);

    const qr = page.locator('#qr svg');
    expect(await qr.isVisible()).toBe(true);
    const box = await qr.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(200);
    expect(box?.height).toBeGreaterThanOrEqual(200);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    // Mobile first: nothing wider than the screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

    await page.locator('#reference').fill('UTR 4242 <ok>');
    await Promise.all([page.waitForURL(base + pagePath), page.getByRole('button', { name: 'I have paid' }).click()]);
    const reported = page.locator('#reported');
    expect(await reported.isVisible()).toBe(true);
    expect(await reported.textContent()).toMatch(
      /Payment reported once, last on\s+10 March 2026, 11:30 am, reference UTR 4242 <ok>\./,
    );

    const row = await h.store.db
      .selectFrom('transactions')
      .select('claim_count')
      .where('id', '=', created.body.data.id)
      .executeTakeFirstOrThrow();
    expect(row.claim_count).toBe(1);
    expect(cspViolations).toEqual([]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    await context.close();
  });
});
