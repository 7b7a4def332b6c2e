import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimPayment, DashboardClient, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { addStaff, signInAsUser } from './helpers/staff.js';

/**
 * A buyer's "I have paid" from their account page, decided on the dashboard (PRODUCT parts 18 and
 * 20) over HTTP as a browser without JavaScript: listed on Home next to a due's claims and on the
 * buyer's page, confirmed (with the buyer's amount or another) or rejected on a second step.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z' });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set('2026-03-10T06:00:00.000Z'));

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface Buyer {
  contactId: string;
  dues: string[];
  claimId: string;
}

/** A buyer with two open dues (₹600 oldest, then ₹400) and an account claim of `amount` rupees. */
async function buyerWithClaim(
  biz: TestBusiness,
  name = 'Ravi Kumar',
  amount = '750',
  reference = 'UTR-ACC-9',
): Promise<Buyer> {
  const dues: string[] = [];
  let contactId = '';
  for (const [i, paise] of [60_000, 40_000].entries()) {
    const res = await biz.post('/v1/transactions', {
      contact_name: name,
      amount_paise: paise,
      due_date: `2026-03-2${i}`,
    });
    expect(res.status, res.text).toBe(201);
    dues.push(res.body.data.id);
    contactId = res.body.data.contact_id;
  }
  const contact = await biz.get(`/v1/contacts/${contactId}`);
  const claimed = await h.request('POST', `${new URL(contact.body.data.account_url).pathname}/claim`, {
    payload: new URLSearchParams({ amount, reference }).toString(),
    headers: FORM,
  });
  expect(claimed.status, claimed.text).toBe(303);
  const claims = (await biz.get(`/v1/contacts/${contactId}/claims`)).body.data as { id: string }[];
  return { contactId, dues, claimId: claims.at(-1)?.id as string };
}

/** Everything a decision could change, read through the API. */
async function stateOf(biz: TestBusiness, b: Buyer) {
  const [claims, receipts, contact] = await Promise.all([
    biz.get(`/v1/contacts/${b.contactId}/claims`),
    biz.get(`/v1/contacts/${b.contactId}/payments`),
    biz.get(`/v1/contacts/${b.contactId}`),
  ]);
  return {
    claims: claims.body.data.map((c: { status: string }) => c.status),
    receipts: receipts.body.data.length,
    balance: contact.body.data.balance_paise,
    credit: contact.body.data.credit_paise,
  };
}

function textOf(page: string): string {
  return page
    .replace(/<style>[\s\S]*?<\/style>|<script>[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
}

const decision = (b: Buyer, d: 'confirm' | 'reject') => `/dashboard/contacts/${b.contactId}/claims/${b.claimId}/${d}`;

describe('account claims on the dashboard', () => {
  it("Home lists them next to a due's claims, newest first; the buyer's page lists them with both decisions", async () => {
    const biz = await h.newBusiness();
    const due = await biz.post('/v1/transactions', {
      contact_name: 'Meena Stores',
      amount_paise: 20_000,
      due_date: '2026-03-25',
    });
    await claimPayment(h, due.body.data.pay_page_url, 'UTR-DUE-1');
    h.clock.advance(60_000);
    const b = await buyerWithClaim(biz);
    const client = await signInByLink(h, biz.business.id);

    const home = await client.get('/dashboard');
    expect(home.status).toBe(200);
    const text = textOf(home.text);
    expect(text).toContain('Ravi Kumar For the whole account · UTR-ACC-9');
    expect(text).toContain('₹750.00');
    expect(text).toContain('Meena Stores UTR-DUE-1');
    expect(text.indexOf('Ravi Kumar For the whole account')).toBeLessThan(text.indexOf('Meena Stores UTR-DUE-1'));
    expect(home.text).toContain(`href="${decision(b, 'confirm')}"`);
    expect(home.text).toContain(`href="${decision(b, 'reject')}"`);
    expect(home.text).toContain(`href="/dashboard/dues/${due.body.data.id}"`);

    const ledger = await client.get(`/dashboard/contacts/${b.contactId}`);
    expect(textOf(ledger.text)).toContain('Payments reported by the buyer For the whole account · UTR-ACC-9');
    expect(ledger.text).toContain(`href="${decision(b, 'confirm')}"`);
    expect(ledger.text).toContain(`href="${decision(b, 'reject')}"`);
  });

  it('confirm asks on a second step with the amount, records a receipt oldest due first, and leaves the lists', async () => {
    const biz = await h.newBusiness();
    const b = await buyerWithClaim(biz);
    const client = await signInByLink(h, biz.business.id);
    const before = await stateOf(biz, b);
    expect(before).toEqual({ claims: ['pending'], receipts: 0, balance: 100_000, credit: 0 });

    const step = await client.get(decision(b, 'confirm'));
    expect(step.status).toBe(200);
    expect(textOf(step.text)).toContain('Confirm this payment? Ravi Kumar says they paid ₹750.00 (UTR-ACC-9)');
    expect(step.text).toContain('name="amount" inputmode="decimal" required value="750.00"');
    expect(await stateOf(biz, b)).toEqual(before);

    const res = await client.submit(decision(b, 'confirm'), decision(b, 'confirm'), { amount: '700' });
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe(`/dashboard/contacts/${b.contactId}?ok=confirmed`);
    expect(await stateOf(biz, b)).toEqual({ claims: ['confirmed'], receipts: 1, balance: 30_000, credit: 0 });
    const [receipt] = (await biz.get(`/v1/contacts/${b.contactId}/payments`)).body.data;
    expect(receipt).toMatchObject({ amount_paise: 70_000, source: 'claim', utr: 'UTR-ACC-9', payment_method: 'upi' });
    expect(receipt.allocations).toEqual([
      { transaction_id: b.dues[0], amount_paise: 60_000 },
      { transaction_id: b.dues[1], amount_paise: 10_000 },
    ]);

    const after = await client.get(`/dashboard/contacts/${b.contactId}?ok=confirmed`);
    expect(textOf(after.text)).toContain('The claim was confirmed and the payment recorded.');
    expect(after.text).not.toContain(decision(b, 'confirm'));
    expect((await client.get('/dashboard')).text).not.toContain(decision(b, 'confirm'));

    const again = await client.submit(`/dashboard/contacts/${b.contactId}`, decision(b, 'confirm'), { amount: '700' });
    expect(again.status).toBe(409);
    expect(textOf(again.text)).toContain('claim is already confirmed');
    expect(await stateOf(biz, b)).toEqual({ claims: ['confirmed'], receipts: 1, balance: 30_000, credit: 0 });
  });

  it("an emptied amount is the buyer's; more than is owed becomes the buyer's advance", async () => {
    const biz = await h.newBusiness();
    const b = await buyerWithClaim(biz, 'Asha Stores', '1200');
    const client = await signInByLink(h, biz.business.id);
    const res = await client.submit(decision(b, 'confirm'), decision(b, 'confirm'), { amount: ' ' });
    expect(res.status, res.text).toBe(303);
    expect(await stateOf(biz, b)).toEqual({ claims: ['confirmed'], receipts: 1, balance: -20_000, credit: 20_000 });
  });

  it('a bad amount is a 400 naming the field on the same step, nothing changed', async () => {
    const biz = await h.newBusiness();
    const b = await buyerWithClaim(biz);
    const client = await signInByLink(h, biz.business.id);
    const before = await stateOf(biz, b);
    for (const amount of ['abc', '0', '-5', '12.345', '1'.repeat(20)]) {
      const res = await client.submit(decision(b, 'confirm'), decision(b, 'confirm'), { amount });
      expect(res.status, amount).toBe(400);
      expect(res.text).toContain('amount');
      expect(res.text).toContain('Confirm this payment?');
    }
    expect(await stateOf(biz, b)).toEqual(before);
  });

  it('reject asks on a second step and changes nothing else', async () => {
    const biz = await h.newBusiness();
    const b = await buyerWithClaim(biz);
    const client = await signInByLink(h, biz.business.id);
    const step = await client.get(decision(b, 'reject'));
    expect(step.status).toBe(200);
    expect(textOf(step.text)).toContain('Reject this payment?');
    expect((await stateOf(biz, b)).claims).toEqual(['pending']);
    const res = await client.submit(decision(b, 'reject'), decision(b, 'reject'));
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe(`/dashboard/contacts/${b.contactId}?ok=rejected`);
    expect(await stateOf(biz, b)).toEqual({ claims: ['rejected'], receipts: 0, balance: 100_000, credit: 0 });
    const again = await client.submit(`/dashboard/contacts/${b.contactId}`, decision(b, 'reject'));
    expect(again.status).toBe(409);
    expect((await client.get('/dashboard')).text).not.toContain(decision(b, 'reject'));
  });

  it("another buyer's or business's claim, and a bad id, answer 404 with nothing changed", async () => {
    const biz = await h.newBusiness();
    const b = await buyerWithClaim(biz);
    const other = await buyerWithClaim(biz, 'Meena Stores');
    const stranger = await buyerWithClaim(await h.newBusiness(), 'Ravi Kumar');
    const client = await signInByLink(h, biz.business.id);
    const before = await stateOf(biz, b);
    const urls = [
      `/dashboard/contacts/${other.contactId}/claims/${b.claimId}/confirm`,
      `/dashboard/contacts/${b.contactId}/claims/${other.claimId}/reject`,
      `/dashboard/contacts/${stranger.contactId}/claims/${stranger.claimId}/confirm`,
      `/dashboard/contacts/${b.contactId}/claims/not-a-uuid/confirm`,
    ];
    for (const url of urls) {
      expect((await client.get(url)).status, url).toBe(404);
      const res = await client.submit(`/dashboard/contacts/${b.contactId}`, url, { amount: '10' });
      expect(res.status, url).toBe(404);
    }
    expect(await stateOf(biz, b)).toEqual(before);
    expect((await stateOf(biz, other)).claims).toEqual(['pending']);
  });

  it('without the CSRF token 403, without a session 303 to sign in, nothing changed', async () => {
    const biz = await h.newBusiness();
    const b = await buyerWithClaim(biz);
    const client = await signInByLink(h, biz.business.id);
    const before = await stateOf(biz, b);
    for (const d of ['confirm', 'reject'] as const) {
      expect((await client.request('POST', decision(b, d), { amount: '10' })).status).toBe(403);
      const anonymous = await new DashboardClient(h).request('POST', decision(b, d), { amount: '10' });
      expect(anonymous.status).toBe(303);
      expect(anonymous.location).toBe('/dashboard/login');
    }
    expect(await stateOf(biz, b)).toEqual(before);
  });

  it('a viewer and a collector see no decision and are refused one (403), nothing changed', async () => {
    const biz = await h.newBusiness();
    const b = await buyerWithClaim(biz);
    const before = await stateOf(biz, b);
    const viewer = await signInAsUser(h, biz.business.id, (await addStaff(h, biz, 'viewer')).id);
    expect((await viewer.get('/dashboard')).text).toContain('For the whole account');
    expect((await viewer.get('/dashboard')).text).not.toContain(decision(b, 'confirm'));
    expect((await viewer.get(`/dashboard/contacts/${b.contactId}`)).text).not.toContain(decision(b, 'confirm'));
    const collector = await addStaff(h, biz, 'collector');
    await biz.patch(`/v1/contacts/${b.contactId}`, { assigned_to: collector.id });
    const collecting = await signInAsUser(h, biz.business.id, collector.id);
    for (const client of [viewer, collecting]) {
      for (const d of ['confirm', 'reject'] as const) {
        expect((await client.get(decision(b, d))).status).toBe(403);
        const res = await client.submit(`/dashboard/contacts/${b.contactId}`, decision(b, d), { amount: '10' });
        expect(res.status).toBe(403);
      }
    }
    expect(await stateOf(biz, b)).toEqual(before);
  });

  it('speaks Hindi for a Hindi business', async () => {
    const biz = await h.newBusiness({ language: 'hi' });
    const b = await buyerWithClaim(biz);
    const client = await signInByLink(h, biz.business.id);
    expect(textOf((await client.get('/dashboard')).text)).toContain('Ravi Kumar पूरे खाते के लिए · UTR-ACC-9');
    const step = textOf((await client.get(decision(b, 'confirm'))).text);
    expect(step).toContain('यह भुगतान मान लें? Ravi Kumar ने बताया कि ₹750.00 दिए (UTR-ACC-9)');
    expect(step).toContain('कितने पैसे मिले (₹)');
  });
});
