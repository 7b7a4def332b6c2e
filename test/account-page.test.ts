import QRCode from 'qrcode';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomToken } from '../src/lib/ids.js';
import { type Harness, type Response, startHarness, type TestBusiness } from './helpers/harness.js';

/** The buyer's account page /a/<token> over HTTP: what it shows, its UPI link, its claim form. */

// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(NOW));

interface Account {
  contactId: string;
  path: string;
  reference: string;
  dues: string[];
}

/** A buyer with the given dues ([paise, due date, invoice number?]). */
async function account(
  biz: TestBusiness,
  dues: [number, string, string?][],
  contact: Record<string, unknown> = {},
): Promise<Account> {
  const made = await biz.post('/v1/contacts', { name: 'Ravi Kumar', ...contact });
  expect(made.status, made.text).toBe(201);
  const { id, account_url, payment_reference } = made.body.data;
  const ids: string[] = [];
  for (const [amount, date, invoice] of dues) {
    const res = await biz.post('/v1/transactions', {
      contact_id: id,
      amount_paise: amount,
      due_date: date,
      notes: 'private note of the business',
      ...(invoice && { invoice_number: invoice }),
    });
    expect(res.status, res.text).toBe(201);
    ids.push(res.body.data.id);
  }
  return { contactId: id, path: new URL(account_url).pathname, reference: payment_reference, dues: ids };
}

const page = (path: string, headers: Record<string, string> = {}) => h.request('GET', path, { headers });
const claim = (acc: Account, fields: Record<string, string>) =>
  h.request('POST', `${acc.path}/claim`, { payload: new URLSearchParams(fields).toString(), headers: FORM });

async function claimsOf(biz: TestBusiness, acc: Account) {
  return (await biz.get(`/v1/contacts/${acc.contactId}/claims`)).body.data as { amount_paise: number }[];
}

function visibleText(res: Response): string {
  return res.text
    .replace(/<style>[\s\S]*?<\/style>/, '')
    .replace(/<svg[\s\S]*?<\/svg>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[ \t\r\n]+/g, ' ');
}

const withUpi = (biz: TestBusiness) => h.services.businesses.update(biz.business.id, { upiId: 'sharma@okhdfc' });

describe('GET /a/:token', () => {
  it("shows the business, the buyer's total, open dues oldest first and last payments, never the notes", async () => {
    const biz = await h.newBusiness({ name: 'Sharma Traders' });
    const acc = await account(biz, [
      [500_000, '2026-12-10', 'INV-2'],
      [250_050, '2026-11-15', 'INV-1'],
      [100_000, '2026-12-20'],
    ]);
    const paid = await biz.post(`/v1/contacts/${acc.contactId}/payments`, {
      amount_paise: 100_000,
      received_on: '2026-11-20',
    });
    expect(paid.status, paid.text).toBe(201);
    const res = await page(acc.path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<html lang="en">');
    const text = visibleText(res);
    expect(text).toContain('Account of Ravi Kumar with Sharma Traders');
    expect(text).toContain('Total to pay ₹7,500.50');
    // The oldest due (date passed) was paid in part first.
    expect(text).toContain('₹1,500.50 of it is past its date');
    expect(text).toMatch(
      /Bills to pay Due 15 November 2026 Invoice INV-1 Date passed ₹1,500.50 Due 10 December 2026 Invoice INV-2 ₹5,000.00 Due 20 December 2026 ₹1,000.00/,
    );
    expect(text).toContain('Your last payments 20 November 2026 ₹1,000.00');
    expect(text).not.toContain('private note');
    expect(res.text).not.toMatch(/<script/i);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'");
    // No UPI id and no gateway: the buyer is told whom to ask.
    expect(res.text).not.toContain('upi://');
    expect(text).toContain('Ask Sharma Traders how to pay.');
  });

  it('offers the whole balance as a UPI link and QR code whose note carries the account reference', async () => {
    const biz = await h.newBusiness({ name: 'Sharma & Sons' });
    await withUpi(biz);
    const acc = await account(biz, [
      [123_450, '2026-12-01'],
      [100, '2026-12-02'],
    ]);
    expect(acc.reference).toMatch(/^R[A-Z0-9]{7}$/);
    const res = await page(acc.path);
    const link = `upi://pay?pa=sharma@okhdfc&pn=Sharma%20%26%20Sons&am=1235.50&cu=INR&tn=${acc.reference}%20Account`;
    expect(res.text).toContain(`id="upi-link" href="${link.replaceAll('&', '&amp;')}"`);
    const qr = await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(res.text).toContain(qr.replace('<svg ', '<svg role="img" aria-label="UPI QR code" '));
    const text = visibleText(res);
    expect(text).toContain('Pay ₹1,235.50 with a UPI app');
    expect(text).toContain(`Reference for your bank ${acc.reference}`);
    expect(text).not.toContain('Ask Sharma');
  });

  it('says nothing is to pay, or the advance held, and offers no UPI link then', async () => {
    const biz = await h.newBusiness();
    await withUpi(biz);
    const acc = await account(biz, [[1000, '2026-12-01']]);
    await biz.post(`/v1/contacts/${acc.contactId}/payments`, { amount_paise: 1000 });
    let res = await page(acc.path);
    expect(visibleText(res)).toContain('Total to pay ₹0.00 Nothing to pay. Thank you!');
    expect(res.text).not.toContain('upi://');
    await biz.post(`/v1/contacts/${acc.contactId}/payments`, { amount_paise: 2500 });
    res = await page(acc.path);
    expect(visibleText(res)).toContain('You have ₹25.00 paid in advance');
    expect(res.text).not.toContain('upi://');
  });

  it("is in the contact's language, else the business's", async () => {
    const hindi = await h.newBusiness({ name: 'शर्मा ट्रेडर्स', language: 'hi' });
    const byBusiness = await account(hindi, [[1000, '2026-12-01']]);
    let res = await page(byBusiness.path);
    expect(res.text).toContain('<html lang="hi">');
    expect(visibleText(res)).toContain('कुल बकाया ₹10.00');
    expect(visibleText(res)).toContain('1 दिसंबर 2026 तक देना है');
    expect(visibleText(res)).not.toMatch(/Total|Bills|Due|paid/);

    const english = await account(hindi, [[1000, '2026-12-01']], { name: 'English Buyer', language: 'en' });
    res = await page(english.path);
    expect(res.text).toContain('<html lang="en">');
    expect(visibleText(res)).toContain('Total to pay ₹10.00');

    const plainBusiness = await h.newBusiness();
    const byContact = await account(plainBusiness, [[1000, '2026-12-01']], { language: 'hi' });
    res = await page(byContact.path);
    expect(res.text).toContain('<html lang="hi">');
    expect(visibleText(res)).toContain('मैंने पैसे दे दिए');
  });

  it('answers one HTML 404 page for unknown and malformed tokens, in the language the browser asks for', async () => {
    const unknown = await page(`/a/${randomToken()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(visibleText(unknown)).toContain('Account link not found');
    for (const path of ['/a/abc', '/a/%3Cscript%3E', `/a/${'A'.repeat(200)}`, '/a/', '/a/x/y']) {
      const res = await page(path);
      expect(res.status, path).toBe(404);
      expect(res.text, path).toBe(unknown.text);
    }
    const hindi = await page(`/a/${randomToken()}`, { 'accept-language': 'hi-IN,hi;q=0.9' });
    expect(hindi.status).toBe(404);
    expect(visibleText(hindi)).toContain('खाते का लिंक नहीं मिला');
  });
});

describe('POST /a/:token/online without a payments gateway', () => {
  it('offers no "Pay online" and takes no form for it (404)', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [[1_000, '2026-12-01']]);
    const res = await page(acc.path);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('pay-online');
    expect(res.text).not.toContain(`${acc.path}/online`);
    const post = await h.request('POST', `${acc.path}/online`, { payload: '', headers: FORM });
    expect(post.status).toBe(404);
  });
});

describe('POST /a/:token/claim', () => {
  it('records an account claim with the amount and reference, and the page then says so', async () => {
    const biz = await h.newBusiness({ name: 'Sharma Traders' });
    const acc = await account(biz, [[500_000, '2026-12-01']]);
    const res = await claim(acc, { amount: '2,500.5', reference: 'UTR 1234' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(acc.path);
    expect(await claimsOf(biz, acc)).toMatchObject([
      { amount_paise: 250_050, reference: 'UTR 1234', status: 'pending' },
    ]);
    const text = visibleText(await page(acc.path));
    expect(text).toContain(
      'You told us you paid ₹2,500.50 on 21 November 2026. Sharma Traders will check it and update your account.',
    );
    // Nothing is paid until the business confirms it.
    expect(text).toContain('Total to pay ₹5,000.00');
  });

  it('answers 400 with the form again, naming the problem, for a bad amount or reference; nothing recorded', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [[1000, '2026-12-01']]);
    const bad: Record<string, string>[] = [
      {},
      { amount: '' },
      { amount: '0' },
      { amount: '-5' },
      { amount: 'ten' },
      { amount: '1.234' },
      { amount: '99999999999999' },
    ];
    for (const fields of bad) {
      const res = await claim(acc, fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.text).toContain('Enter the amount you paid, for example 1500 or 1500.50.');
      expect(res.text).toContain('id="amount" name="amount" required inputmode="decimal" autocomplete="off" value="');
      expect(res.text).toContain('aria-invalid="true"');
    }
    const long = await claim(acc, { amount: '10', reference: 'x'.repeat(61) });
    expect(long.status).toBe(400);
    expect(long.text).toContain('The reference can be at most 60 letters and digits.');
    // What the buyer typed is kept (escaped) for them to correct.
    expect(long.text).toContain('id="amount" name="amount" required inputmode="decimal" autocomplete="off" value="10"');
    const control = await claim(acc, { amount: '10', reference: 'a\u0007b' });
    expect(control.status).toBe(400);
    const escaped = await claim(acc, { amount: '"><b>' });
    expect(escaped.text).toContain('value="&quot;&gt;&lt;b&gt;"');
    expect(await claimsOf(biz, acc)).toEqual([]);
  });

  it('answers 404 for an unknown token, 415 for a body that is not a form, and 429 after five claims an hour', async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz, [[1000, '2026-12-01']]);
    const unknown = await h.request('POST', `/a/${randomToken()}/claim`, { payload: 'amount=5', headers: FORM });
    expect(unknown.status).toBe(404);
    const json = await h.request('POST', `${acc.path}/claim`, { body: { amount: '5' } });
    expect(json.status).toBe(415);
    for (let i = 0; i < 5; i++) expect((await claim(acc, { amount: '5' })).status).toBe(303);
    const limited = await claim(acc, { amount: '5' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(visibleText(limited)).toContain('Reported many times');
    expect(await claimsOf(biz, acc)).toHaveLength(5);
  });
});
