import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, expectAccessible, launchChromium, PHONE } from './helpers/chromium.js';
import { type FakeRazorpay, razorpayEnv, startFakeRazorpay } from './helpers/fake-razorpay.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';

/**
 * The buyer's account page in Debian's Chromium (playwright-core): on a phone (360x740) and a
 * desktop, in English and Hindi, axe-core with no serious or critical violation, once with
 * JavaScript off, where the "I have paid" form is filled in and submitted. Screenshots under
 * test-artifacts/account-page.
 */
const ARTIFACTS = path.resolve('test-artifacts', 'account-page', STORE);

/** [label, viewport, language, JavaScript]: axe-core needs JavaScript; the page itself does not. */
const CASES = [
  ['phone', PHONE, 'en', true],
  ['phone', PHONE, 'hi', true],
  ['desktop', DESKTOP, 'en', true],
  ['desktop', DESKTOP, 'hi', true],
  ['phone-nojs', PHONE, 'en', false],
  ['phone-nojs', PHONE, 'hi', false],
] as const;

const WORDS = {
  en: { total: 'Total to pay', pay: 'Pay ₹7,500.50 with a UPI app', claimed: 'You told us you paid ₹1,500.00' },
  hi: { total: 'कुल बकाया', pay: 'UPI ऐप से ₹7,500.50 दें', claimed: 'आपने बताया कि' },
} as const;

let h: Harness;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z' });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** A buyer owing three bills (one past its date) with one payment made, in `language`. */
async function accountPath(language: 'en' | 'hi', on: Harness = h): Promise<string> {
  const biz = await on.newBusiness({ name: language === 'hi' ? 'शर्मा किराना स्टोर' : 'Sharma Kirana Store' });
  await on.services.businesses.update(biz.business.id, { upiId: 'sharma.kirana@okicici' });
  const contact = await biz.post('/v1/contacts', { name: 'Ravi Kumar', language });
  const id = contact.body.data.id;
  for (const [amount, date, invoice] of [
    [250_050, '2026-11-15', 'INV-101'],
    [500_000, '2026-12-10', 'INV-117'],
    [100_000, '2026-12-20', 'INV-120'],
  ] as const) {
    const res = await biz.post('/v1/transactions', {
      contact_id: id,
      amount_paise: amount,
      due_date: date,
      invoice_number: invoice,
    });
    expect(res.status, res.text).toBe(201);
  }
  await biz.post(`/v1/contacts/${id}/payments`, { amount_paise: 100_000, received_on: '2026-11-20' });
  return new URL(contact.body.data.account_url).pathname;
}

async function check(page: Page, width: number, name: string, javaScript: boolean) {
  if (javaScript) {
    await expectAccessible(page, name);
  }
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(width);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
}

describe('the account page in headless Chromium', () => {
  it.each(CASES)(
    '%s in %o, %s: the total and one pay button; without JavaScript the claim form works',
    {
      timeout: 180_000,
    },
    async (label, viewport, lang, javaScript) => {
      browser ??= await launchChromium();
      const name = `${label}-${lang}`;
      const context = await browser.newContext({ viewport, javaScriptEnabled: javaScript });
      const page = await context.newPage();
      const res = await page.goto(`${base}${await accountPath(lang)}`);
      expect(res?.status(), name).toBe(200);
      expect(await page.getAttribute('html', 'lang')).toBe(lang);
      expect(await page.textContent('main')).toContain(WORDS[lang].total);
      expect((await page.textContent('#balance'))?.trim()).toBe('₹7,500.50');
      expect((await page.textContent('#upi-link'))?.trim()).toBe(WORDS[lang].pay);
      // One filled button to pay; the claim is the outlined one below.
      expect(await page.locator('a.button, button:not(.secondary)').count()).toBe(1);
      await check(page, viewport.width, name, javaScript);

      if (!javaScript) {
        await page.fill('#amount', '1,500');
        await page.fill('#reference', 'UTR 630512345678');
        await Promise.all([page.waitForURL(/\/a\/[^/]+$/), page.click('#claim button[type="submit"]')]);
        expect(await page.textContent('#reported')).toContain(WORDS[lang].claimed);
        await check(page, viewport.width, `${name}-claimed`, false);
      }
      await context.close();
    },
  );
});

describe('"Pay online" for the whole balance in headless Chromium (a gateway set up)', () => {
  let fake: FakeRazorpay;
  let online: Harness;
  let onlineBase: string;
  const ONLINE = { en: 'Pay ₹7,500.50 online', hi: '₹7,500.50 ऑनलाइन दें' } as const;

  beforeAll(async () => {
    fake = await startFakeRazorpay();
    online = await startHarness({ now: '2026-11-21T06:30:00.000Z', env: razorpayEnv(fake) });
    await online.app.listen({ host: '127.0.0.1', port: 0 });
    onlineBase = `http://127.0.0.1:${(online.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await online?.close();
    await fake?.close();
  });

  it.each(['en', 'hi'] as const)(
    'phone, %s: the button beside UPI leads to the link of the balance; once paid, the page shows nothing owed',
    { timeout: 180_000 },
    async (lang) => {
      browser ??= await launchChromium();
      const name = `online-phone-${lang}`;
      const context = await browser.newContext({ viewport: PHONE });
      const page = await context.newPage();
      const pagePath = await accountPath(lang, online);
      expect((await page.goto(`${onlineBase}${pagePath}`))?.status(), name).toBe(200);
      expect((await page.textContent('#pay-online'))?.trim()).toBe(ONLINE[lang]);
      // Still one filled button: the UPI link; "Pay online" is the outlined one beside it.
      expect(await page.locator('a.button, button:not(.secondary)').count()).toBe(1);
      await check(page, PHONE.width, name, true);

      await Promise.all([page.waitForURL(`${fake.base}/i/**`, { timeout: 10_000 }), page.click('#pay-online')]);
      const link = fake.links.find((l) => page.url() === l.short_url);
      expect(link).toMatchObject({ amount: 750_050, status: 'created' });
      const paid = await fake.deliver(
        onlineBase,
        fake.paidWebhook(link as NonNullable<typeof link>, { id: `pay_AccountPaid${lang}` }),
      );
      expect(paid.status).toBe(200);
      await page.goto(`${onlineBase}${pagePath}`);
      expect((await page.textContent('#balance'))?.trim()).toBe('₹0.00');
      expect(await page.locator('#pay-online').count()).toBe(0);
      expect(await page.textContent('#payments')).toContain('₹7,500.50');
      await check(page, PHONE.width, `${name}-paid`, true);
      await context.close();
    },
  );
});
