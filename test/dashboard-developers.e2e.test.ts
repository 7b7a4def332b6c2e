import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchChromium } from './helpers/chromium.js';
import { loginLink } from './helpers/dashboard.js';
import type { Harness, TestBusiness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver } from './helpers/https-receiver.js';

/**
 * The developers page on a phone (360x740) in headless Chromium with JavaScript off: recent
 * events, one tap to replay the last 24 hours and to get a new signing secret (shown once), in
 * English and Hindi, fitting the screen and passing axe-core.
 */
const PHONE = { width: 360, height: 740 };

let h: Harness;
let receiver: HttpsReceiver;
let close: (() => Promise<void>) | undefined;
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({
    now: '2026-03-10T06:00:00.000Z',
    env: { PUBLIC_BASE_URL: 'http://localhost' },
  }));
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await close?.();
});

async function phonePage(biz: TestBusiness, javaScriptEnabled = false): Promise<Page> {
  const context = await (browser as Browser).newContext({
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    javaScriptEnabled,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(base + new URL(await loginLink(h, biz.business.id)).pathname);
  expect(page.url()).toBe(`${base}/dashboard`);
  await page.goto(`${base}/dashboard/developers`);
  return page;
}

/** Fits the phone's width, and axe-core finds nothing serious (it needs a page with JavaScript on). */
async function expectUsable(biz: TestBusiness, name: string) {
  const page = await phonePage(biz, true);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(PHONE.width);
  await expectAccessible(page, name);
  await page.context().close();
}

async function businessWithTraffic(language: string) {
  const biz = await h.newBusiness({ language });
  const hook = await biz.post('/v1/webhooks', { url: receiver.url, events: ['contact.created'] });
  expect(hook.status).toBe(201);
  expect((await biz.post('/v1/contacts', { name: 'Phone Buyer' })).status).toBe(201);
  await h.services.webhookDispatcher.fanOut();
  await h.services.webhookDispatcher.deliverDue();
  return biz;
}

describe('the developers page on a phone, JavaScript off', () => {
  it('shows recent events, replays the last 24 hours and shows a new secret once, with one tap each', {
    timeout: 90_000,
  }, async () => {
    receiver.requests.length = 0;
    const biz = await businessWithTraffic('en');
    const page = await phonePage(biz);
    const [event] = (await biz.get('/v1/events')).body.data;
    expect(await page.getByText(event.id).count()).toBe(1);
    await expectUsable(biz, 'developers');

    await Promise.all([
      page.waitForURL(`${base}/dashboard/developers?ok=replayed`),
      page.getByRole('button', { name: 'Send the last 24 hours again' }).click(),
    ]);
    expect(await page.getByRole('status').first().textContent()).toContain('queued again');
    await h.services.webhookDispatcher.deliverDue();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);

    await Promise.all([
      page.waitForLoadState('load'),
      page.getByRole('button', { name: 'New signing secret' }).click(),
    ]);
    const shown = await page.locator('code.key').textContent();
    expect(shown).toMatch(/^[0-9a-f]{64}$/);
    await page.goto(`${base}/dashboard/developers`);
    expect(await page.locator('code.key').count()).toBe(0);
  });

  it('in Hindi', { timeout: 90_000 }, async () => {
    const biz = await businessWithTraffic('hi');
    const page = await phonePage(biz);
    expect(await page.getByRole('button', { name: 'पिछले 24 घंटे के इवेंट फिर भेजें' }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'हाल के इवेंट' }).count()).toBe(1);
    await expectUsable(biz, 'developers in Hindi');
  });
});
