import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserHarness, expectAccessible, startBrowserHarness } from './helpers/chromium.js';
import { lastCode, loginLink } from './helpers/dashboard.js';
import { type Harness, STORE } from './helpers/harness.js';
import { addStaff } from './helpers/staff.js';

/**
 * Staff in Debian's Chromium (playwright-core): a collector signs in with a code sent to their own
 * phone and sees only their buyers, and the owner's Staff page, at 360x740, in English and Hindi,
 * with axe-core. Screenshots under test-artifacts/staff.
 */
const ARTIFACTS = path.resolve('test-artifacts', 'staff', STORE);
const PHONE = { width: 360, height: 740 };

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

async function phonePage(locale: string): Promise<Page> {
  const context = await browser.newContext({
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale,
  });
  return context.newPage();
}

/** Accessible (axe-core), no wider than the phone, and shot. */
async function expectUsable(page: Page, name: string) {
  await expectAccessible(page, name);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(PHONE.width);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
}

/** A business with two buyers, one of them assigned to a collector. */
async function seed(language: 'en' | 'hi') {
  const biz = await h.newBusiness({ name: language === 'hi' ? 'शर्मा एंड संस' : 'Sharma & Sons', language });
  const collector = await addStaff(h, biz, 'collector', language === 'hi' ? 'रमेश वसूली' : 'Ramesh Collector');
  await addStaff(h, biz, 'viewer', 'CA Gupta');
  const mine = await biz.post('/v1/transactions', {
    contact_name: 'Ravi Kumar',
    contact_phone: '98765 11111',
    amount_paise: 450_000,
    due_date: '2026-03-20',
  });
  await biz.post('/v1/transactions', { contact_name: 'Meena Stores', amount_paise: 120_000, due_date: '2026-03-02' });
  await biz.patch(`/v1/contacts/${mine.body.data.contact_id}`, { assigned_to: collector.id });
  return { biz, collector, contactId: mine.body.data.contact_id as string };
}

describe('a collector on a phone', () => {
  it('signs in with the code sent to their own phone and sees only their buyers (English)', async () => {
    const { collector, contactId } = await seed('en');
    const page = await phonePage('en-IN');
    await page.goto(`${base}/dashboard`);
    expect(page.url()).toBe(`${base}/dashboard/login`);
    await expectUsable(page, 'en-sign-in');
    await page.getByLabel('Your phone number').fill(collector.phone);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Send code' }).click()]);
    await page.getByLabel('6-digit code').fill(lastCode(h, collector.phone));
    // Home is the business's totals: a collector lands on their buyers instead.
    await Promise.all([
      page.waitForURL(`${base}/dashboard/contacts`),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    const list = await page.textContent('main');
    expect(list).toContain('Ravi Kumar');
    expect(list).not.toContain('Meena Stores');
    expect(await page.textContent('header')).toContain('Ramesh Collector');
    expect(await page.locator('nav a[href="/dashboard/settings"]').count()).toBe(0);
    await expectUsable(page, 'en-collector-buyers');

    await page.getByRole('link', { name: 'Ravi Kumar' }).first().click();
    await page.waitForURL(`${base}/dashboard/contacts/${contactId}`);
    expect(await page.getByText('Received money').count()).toBeGreaterThan(0);
    expect(await page.locator(`form[action="/dashboard/contacts/${contactId}/edit"]`).count()).toBe(0);
    await expectUsable(page, 'en-collector-buyer');
    await page.context().close();
  });

  it('sees their buyers in Hindi', async () => {
    const { biz, collector } = await seed('hi');
    const page = await phonePage('hi-IN');
    await page.goto(new URL(await loginLink(h, biz.business.id, collector.id)).pathname.replace(/^/, base));
    await page.waitForURL(`${base}/dashboard/contacts`);
    expect(await page.getAttribute('html', 'lang')).toBe('hi');
    expect(await page.textContent('nav')).toContain('ग्राहक');
    expect(await page.textContent('header')).toContain('रमेश वसूली');
    expect(await page.textContent('main')).not.toContain('Meena Stores');
    await expectUsable(page, 'hi-collector-buyers');
    await page.context().close();
  });
});

describe("the owner's Staff page on a phone", () => {
  for (const language of ['en', 'hi'] as const) {
    it(`adds a person and changes a role (${language})`, async () => {
      const { biz } = await seed(language);
      const page = await phonePage(language === 'hi' ? 'hi-IN' : 'en-IN');
      await page.goto(`${base}${new URL(await loginLink(h, biz.business.id)).pathname}`);
      await page.goto(`${base}/dashboard/users`);
      await expectAccessible(page, `${language}-staff`);
      const t =
        language === 'hi'
          ? { add: 'व्यक्ति जोड़ें', name: 'नाम', phone: 'फ़ोन नंबर' }
          : { add: 'Add a person', name: 'Name', phone: 'Phone number' };
      await page.getByLabel(t.name, { exact: true }).fill('Sunita');
      await page.getByLabel(t.phone, { exact: true }).fill('98765 33333');
      await Promise.all([page.waitForURL(/ok=user_added/), page.getByRole('button', { name: t.add }).click()]);
      expect(await page.textContent('main')).toContain('Sunita');
      await expectAccessible(page, `${language}-staff-added`);
      const users = (await biz.get('/v1/users')).body.data as Array<{ id: string; name: string; role: string }>;
      expect(users.map((u) => [u.name, u.role])).toContainEqual(['Sunita', 'collector']);

      // Sunita keeps the books now: the owner changes her role.
      const sunita = users.find((u) => u.name === 'Sunita') as { id: string };
      const r =
        language === 'hi'
          ? { person: 'व्यक्ति', role: 'नया काम', change: 'काम बदलें', done: 'काम बदल दिया गया।' }
          : { person: 'Person', role: 'New role', change: 'Change a role', done: 'Role changed.' };
      await page.getByLabel(r.person, { exact: true }).selectOption(sunita.id);
      await page.getByLabel(r.role, { exact: true }).selectOption('accountant');
      await Promise.all([
        page.waitForURL(/ok=user_role_changed/),
        page.getByRole('button', { name: r.change }).click(),
      ]);
      expect(await page.textContent('main')).toContain(r.done);
      await expectUsable(page, `${language}-staff-role-changed`);
      const after = (await biz.get('/v1/users')).body.data as Array<{ name: string; role: string }>;
      expect(after.map((u) => [u.name, u.role])).toContainEqual(['Sunita', 'accountant']);
      await page.context().close();
    });
  }
});

describe("the owner assigns a buyer on a phone, without JavaScript's help", () => {
  for (const language of ['en', 'hi'] as const) {
    it(`picks the collector in "Assigned to" and the list shows it (${language})`, async () => {
      const { biz, collector } = await seed(language);
      const other = await biz.post('/v1/transactions', {
        contact_name: 'Sunil Traders',
        amount_paise: 80_000,
        due_date: '2026-03-25',
      });
      const contactId = other.body.data.contact_id as string;
      const page = await phonePage(language === 'hi' ? 'hi-IN' : 'en-IN');
      await page.goto(`${base}${new URL(await loginLink(h, biz.business.id)).pathname}`);
      await page.goto(`${base}/dashboard/contacts/${contactId}`);
      const t =
        language === 'hi'
          ? { assign: 'किसके ज़िम्मे', save: 'सहेजें', done: 'ग्राहक सौंप दिया गया', to: `${collector.name} के ज़िम्मे` }
          : { assign: 'Assigned to', save: 'Save', done: 'the buyer is assigned', to: `Assigned to ${collector.name}` };
      await page.locator('#assign > summary').click();
      await page.getByLabel(t.assign, { exact: true }).selectOption(collector.id);
      await expectAccessible(page, `${language}-buyer-assign`);
      await Promise.all([page.waitForURL(/ok=assigned/), page.getByRole('button', { name: t.save }).click()]);
      expect(await page.textContent('main')).toContain(t.to);
      expect(await page.textContent('body')).toContain(t.done);
      await page.goto(`${base}/dashboard/contacts`);
      expect(await page.textContent('main')).toContain(t.to);
      await expectAccessible(page, `${language}-buyers-assigned`);
      expect((await biz.get(`/v1/contacts/${contactId}`)).body.data.assigned_to).toBe(collector.id);
      await page.context().close();
    });
  }
});
