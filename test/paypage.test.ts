import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInstant } from '../src/i18n/format.js';
import { randomToken } from '../src/lib/ids.js';
import { type Harness, type Response, startHarness, type TestBusiness } from './helpers/harness.js';

// 06:00 UTC is 11:30 in Asia/Kolkata (the default business time zone).
const NOW = '2026-03-10T06:00:00.000Z';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

interface Due {
  id: string;
  path: string;
  token: string;
  reference: string;
}

async function newDue(biz: TestBusiness, body: Record<string, unknown> = {}): Promise<Due> {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 12_345_000,
    due_date: '2026-03-15',
    contact_name: 'Ravi Kumar',
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  const url = new URL(res.body.data.pay_page_url);
  expect(url.origin).toBe('https://pay.example.test');
  expect(res.body.data.payment_reference).toMatch(/^R[A-Z0-9]{8}$/);
  return {
    id: res.body.data.id,
    path: url.pathname,
    token: url.pathname.slice('/pay/'.length),
    reference: res.body.data.payment_reference,
  };
}

const page = (path: string) => h.request('GET', path);
const claim = (due: Due, fields: Record<string, string> = {}) =>
  h.request('POST', `${due.path}/claim`, { payload: new URLSearchParams(fields).toString(), headers: FORM });

async function claimRows(due: Due) {
  return h.store.db
    .selectFrom('payment_claims')
    .select(['business_id', 'reference', 'created_at'])
    .where('transaction_id', '=', due.id)
    .orderBy('created_at')
    .execute();
}

async function claimCount(due: Due): Promise<number> {
  const row = await h.store.db
    .selectFrom('transactions')
    .select('claim_count')
    .where('id', '=', due.id)
    .executeTakeFirstOrThrow();
  return row.claim_count;
}

async function withUpi(biz: TestBusiness, upiId = 'sharma.traders@okhdfc') {
  await h.services.businesses.update(biz.business.id, { upiId });
}

/** The page's text with tags dropped and whitespace collapsed, for reading like a person. */
function visibleText(res: Response): string {
  return res.text
    .replace(/<style>[\s\S]*?<\/style>/, '')
    .replace(/<svg[\s\S]*?<\/svg>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[ \t\r\n]+/g, ' ');
}

function expectSecurityHeaders(res: Response) {
  const csp = String(res.headers['content-security-policy']);
  for (const directive of [
    "default-src 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "img-src 'self' data:",
  ]) {
    expect(csp).toContain(directive);
  }
  expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+={0,2}'/);
  expect(csp).not.toContain('unsafe');
  expect(csp).not.toContain('script-src');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['cache-control']).toBe('no-store');
}

describe('GET /pay/:token', () => {
  it('shows the business, the amount in Indian format, the due date and the status, with no API key', async () => {
    const biz = await h.newBusiness({ name: 'Sharma Traders' });
    const due = await newDue(biz, { invoice_number: 'INV-42', notes: 'March supplies' });
    const res = await page(due.path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const text = visibleText(res);
    expect(text).toContain('Sharma Traders');
    expect(text).toContain('₹1,23,450.00');
    expect(text).toContain('Due date 15 March 2026');
    expect(text).toContain('Billed to Ravi Kumar');
    expect(text).toContain('Invoice INV-42');
    // PRODUCT part 8: a due's notes are the business's own, never on the page.
    expect(text).not.toContain('March supplies');
    expect(text).not.toContain('Note');
    expect(res.text).toContain('<p class="status status-pending" id="status">Pending</p>');
    expect(res.text).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(res.text).not.toMatch(/<script/i);
    expectSecurityHeaders(res);
  });

  it('formats other amounts exactly', async () => {
    const biz = await h.newBusiness();
    for (const [paise, shown] of [
      [5, '₹0.05'],
      [123_450, '₹1,234.50'],
      [1_000_000_000, '₹1,00,00,000.00'],
    ] as const) {
      const due = await newDue(biz, { amount_paise: paise });
      expect(visibleText(await page(due.path))).toContain(` ${shown} `);
    }
  });

  it('shows a due in another currency with its code and offers no UPI payment', async () => {
    const biz = await h.newBusiness({ currency: 'USD', country: 'US', phone: '+1 415 555 0132' });
    await withUpi(biz);
    const due = await newDue(biz, { amount_paise: 123_450, contact_name: 'Ann Lee' });
    const res = await page(due.path);
    expect(visibleText(res)).toContain('USD\u00a01,234.50');
    expect(res.text).not.toContain('upi://');
    expect(res.text).not.toContain('<svg');
  });

  it('shows a due whose date has passed as overdue', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { due_date: '2026-03-09' });
    const res = await page(due.path);
    expect(res.text).toContain('<p class="status status-overdue" id="status">Overdue</p>');
    expect(visibleText(res)).toContain('Due date 9 March 2026');
  });

  it('offers a UPI link and the same link as an inline SVG QR code when the business has a UPI id', async () => {
    const biz = await h.newBusiness({ name: 'Sharma & Sons' });
    const plain = await newDue(biz, { amount_paise: 123_450 });
    const before = await page(plain.path);
    expect(before.text).not.toContain('upi://');
    expect(before.text).not.toContain('<svg');

    await withUpi(biz);
    const withInvoice = await newDue(biz, { amount_paise: 123_450, invoice_number: 'INV/7' });
    // The due's payment reference leads the note, so the bank's narration carries it.
    const link = `upi://pay?pa=sharma.traders@okhdfc&pn=Sharma%20%26%20Sons&am=1234.50&cu=INR&tn=${withInvoice.reference}%20Invoice%20INV%2F7`;
    const res = await page(withInvoice.path);
    expect(res.text).toContain(`id="upi-link" href="${link.replaceAll('&', '&amp;')}"`);
    const qr = await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(res.text).toContain(qr.replace('<svg ', '<svg role="img" aria-label="UPI QR code" '));
    expect(visibleText(res)).toContain('UPI ID: sharma.traders@okhdfc');
    expect(visibleText(res)).toContain(`Reference for your bank ${withInvoice.reference}`);

    // Without an invoice number the note names the due date.
    const after = await page(plain.path);
    expect(after.text).toContain(`&amp;am=1234.50&amp;cu=INR&amp;tn=${plain.reference}%20Due%202026-03-15"`);
  });

  it('escapes every business-provided string', async () => {
    const biz = await h.newBusiness({ name: '<script>alert(1)</script>' });
    await withUpi(biz);
    const due = await newDue(biz, {
      contact_name: `O'Neil & "Sons" <b>`,
      invoice_number: '"><img src=x onerror=alert(2)>',
      notes: '</dd><script>alert(3)</script>',
    });
    const res = await page(due.path);
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/<script|<img|<b>/i);
    expect(res.text).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(res.text).toContain('<dd>O&#39;Neil &amp; &quot;Sons&quot; &lt;b&gt;</dd>');
    expect(res.text).toContain('<dd>&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</dd>');
    expect(res.text).not.toContain('alert(3)');
    expect(res.text).toContain('<title>Pay ₹1,23,450.00 to &lt;script&gt;alert(1)&lt;/script&gt;</title>');
    expect(res.text).toContain('pn=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
  });

  it('answers the same HTML 404 page for unknown and malformed tokens', async () => {
    const unknown = await page(`/pay/${randomToken()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(visibleText(unknown)).toContain('Payment link not found');
    expectSecurityHeaders(unknown);
    for (const path of ['/pay/abc', '/pay/%3Cscript%3E', `/pay/${'A'.repeat(200)}`, '/pay/', '/pay/x/y']) {
      const res = await page(path);
      expect(res.status, path).toBe(404);
      expect(res.text, path).toBe(unknown.text);
    }
  });

  it('shows a paid due as paid, without payment options or the claim form', async () => {
    const biz = await h.newBusiness();
    await withUpi(biz);
    const due = await newDue(biz);
    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`, { utr: 'UTR1' })).status).toBe(200);
    const res = await page(due.path);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<p class="status status-paid" id="status">Paid on 10 March 2026, 11:30 am</p>');
    expect(res.text).not.toContain('upi://');
    expect(res.text).not.toContain('<form');
  });
});

describe('POST /pay/:token/claim', () => {
  it('records a claim with its reference, counts it and shows it, escaped, on the page', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    const res = await claim(due, { reference: ' UTR <123> & "co" ' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(due.path);
    expectSecurityHeaders(res);

    expect(await claimRows(due)).toEqual([
      { business_id: biz.business.id, reference: 'UTR <123> & "co"', created_at: NOW },
    ]);
    expect(await claimCount(due)).toBe(1);
    const shown = await page(due.path);
    expect(shown.text).toContain('reference <strong>UTR &lt;123&gt; &amp; &quot;co&quot;</strong>');
    expect(visibleText(shown)).toContain('Payment reported once, last on 10 March 2026, 11:30 am');

    // The due itself changed: incremental sync (since=updated_at) must see it.
    h.clock.advance(60_000);
    expect((await claim(due)).status).toBe(303);
    const got = await biz.get(`/v1/transactions/${due.id}`);
    expect(got.body.data.updated_at).toBe(h.clock.now().toISOString());
    expect(got.body.data.status).toBe('pending');
    expect(await claimCount(due)).toBe(2);
    const rows = await claimRows(due);
    expect(rows.map((r) => r.reference)).toEqual(['UTR <123> & "co"', null]);
    const again = visibleText(await page(due.path));
    expect(again).toContain('Payment reported 2 times, last on 10 March 2026, 11:31 am.');
    expect(again).not.toContain(', reference');
  });

  it('keeps claims on their own due', async () => {
    const biz = await h.newBusiness();
    const [a, b] = [await newDue(biz), await newDue(biz)];
    expect((await claim(a, { reference: 'for-a' })).status).toBe(303);
    expect(await claimCount(a)).toBe(1);
    expect(await claimCount(b)).toBe(0);
    expect(await claimRows(b)).toEqual([]);
    expect((await page(b.path)).text).not.toContain('Payment reported');
  });

  it('takes no claim on a paid due and just shows it as paid', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    await biz.post(`/v1/transactions/${due.id}/mark-paid`);
    const res = await claim(due, { reference: 'late' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(due.path);
    expect(await claimCount(due)).toBe(0);
    expect(await claimRows(due)).toEqual([]);
  });

  it('refuses a reference over 60 characters or with control characters, recording nothing', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    for (const reference of ['x'.repeat(61), 'UTR\u0000123', 'a\nb']) {
      const res = await claim(due, { reference });
      expect(res.status, reference).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<p class="error" role="alert">');
      expect(res.text).toContain('<form method="post"');
    }
    expect(await claimCount(due)).toBe(0);
    expect((await claim(due, { reference: 'y'.repeat(60) })).status).toBe(303);
    expect((await claimRows(due)).map((r) => r.reference)).toEqual(['y'.repeat(60)]);
  });

  it('takes an absent or blank reference as none', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    expect((await claim(due, { reference: '   ' })).status).toBe(303);
    h.clock.advance(1000);
    expect((await h.request('POST', `${due.path}/claim`)).status).toBe(303);
    expect((await claimRows(due)).map((r) => r.reference)).toEqual([null, null]);
  });

  it('accepts only an HTML form body', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    const res = await h.request('POST', `${due.path}/claim`, { body: { reference: 'json' } });
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expectSecurityHeaders(res);
    expect(await claimCount(due)).toBe(0);
  });

  it('answers the 404 page for an unknown or malformed token', async () => {
    const notFound = await page(`/pay/${randomToken()}`);
    for (const token of [randomToken(), 'abc']) {
      const res = await h.request('POST', `/pay/${token}/claim`, { payload: 'reference=x', headers: FORM });
      expect(res.status).toBe(404);
      expect(res.text).toBe(notFound.text);
    }
  });

  it('limits claims to 5 an hour per due, answering an HTML 429', async () => {
    const biz = await h.newBusiness();
    const [due, other] = [await newDue(biz), await newDue(biz)];
    for (let i = 0; i < 5; i++) expect((await claim(due, { reference: `r${i}` })).status).toBe(303);
    const limited = await claim(due, { reference: 'r5' });
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(limited.headers['retry-after'])).toBe(3600);
    expect(visibleText(limited)).toContain('Too many reports');
    expectSecurityHeaders(limited);
    expect(await claimCount(due)).toBe(5);
    expect((await claim(other)).status).toBe(303);

    h.clock.advance(60 * 60 * 1000);
    expect((await claim(due, { reference: 'r6' })).status).toBe(303);
    expect(await claimCount(due)).toBe(6);
  });
});

describe('the pay page in the buyer’s language', () => {
  async function buyerLanguage(due: Due, language: 'en' | 'hi' | null) {
    const row = await h.store.db
      .selectFrom('transactions')
      .select('contact_id')
      .where('id', '=', due.id)
      .executeTakeFirstOrThrow();
    await h.store.db.updateTable('contacts').set({ language }).where('id', '=', row.contact_id).execute();
  }

  it('speaks Hindi to a buyer of a Hindi business: words, month names, times, statuses, errors', async () => {
    const biz = await h.newBusiness({ language: 'hi' });
    await withUpi(biz);
    const due = await newDue(biz, { invoice_number: 'INV-9' });
    await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 45_000, payment_method: 'cash' });
    expect((await claim(due, { reference: 'UTR 42' })).status).toBe(303);
    const res = await page(due.path);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="hi">');
    const text = visibleText(res);
    const now = formatInstant('hi', h.clock.now().toISOString(), 'Asia/Kolkata');
    expect(now).toMatch(/^\d+ मार्च 2026, (सुबह|दोपहर|शाम|रात) \d+:\d\d$/);
    for (const words of [
      'किसे देना है',
      'चुकाने की तारीख़ 15 मार्च 2026',
      'किसके नाम Ravi Kumar',
      '₹1,23,450.00 में से अब तक दिए:',
      `${now} को ₹450.00`,
      'UPI ऐप से ₹1,23,000.00 दें',
      'आपने एक बार बताया कि पैसे दे दिए',
      'मैंने पैसे दे दिए',
    ]) {
      expect(text).toContain(words);
    }
    expect(res.text).toContain('रेफ़रेंस <strong>UTR 42</strong>');
    expect(res.text).toContain('aria-label="UPI QR कोड"');
    expect(text).not.toMatch(/Due date|Billed to|Paid so far|I have paid|March/);

    const refused = await claim(due, { reference: 'x'.repeat(61) });
    expect(refused.status).toBe(400);
    expect(visibleText(refused)).toContain('रेफ़रेंस ज़्यादा से ज़्यादा 60 अक्षर का हो सकता है।');

    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`, {})).status).toBe(200);
    expect(visibleText(await page(due.path))).toContain(`${now} को चुकता`);
  });

  it("follows the contact's own language over the business's, both ways", async () => {
    const hiBiz = await h.newBusiness({ language: 'hi' });
    const enBuyer = await newDue(hiBiz);
    await buyerLanguage(enBuyer, 'en');
    const en = await page(enBuyer.path);
    expect(en.text).toContain('<html lang="en">');
    expect(visibleText(en)).toContain('Due date 15 March 2026');

    const enBiz = await h.newBusiness();
    const hiBuyer = await newDue(enBiz);
    await buyerLanguage(hiBuyer, 'hi');
    const hi = await page(hiBuyer.path);
    expect(hi.text).toContain('<html lang="hi">');
    expect(visibleText(hi)).toContain('चुकाने की तारीख़ 15 मार्च 2026');
  });

  it('says "no longer payable" and "too many reports" in the buyer’s language', async () => {
    const biz = await h.newBusiness({ language: 'hi' });
    const gone = await newDue(biz);
    expect((await biz.delete(`/v1/transactions/${gone.id}`)).status).toBeLessThan(300);
    const goneRes = await page(gone.path);
    expect(goneRes.status).toBe(410);
    expect(visibleText(goneRes)).toContain('अब कुछ नहीं देना है');

    const due = await newDue(biz);
    for (let i = 0; i < 5; i++) expect((await claim(due)).status).toBe(303);
    const limited = await claim(due);
    expect(limited.status).toBe(429);
    expect(visibleText(limited)).toContain('बहुत बार बताया गया');
    expect(visibleText(limited)).toContain('60 मिनट बाद फिर कोशिश करें।');
  });

  it('answers an unknown link in the language the browser asks for', async () => {
    const path = `/pay/${randomToken()}`;
    const hi = await h.request('GET', path, { headers: { 'accept-language': 'hi-IN,hi;q=0.9,en;q=0.8' } });
    expect(hi.status).toBe(404);
    expect(hi.text).toContain('<html lang="hi">');
    expect(visibleText(hi)).toContain('भुगतान लिंक नहीं मिला');
    const en = await h.request('GET', path, { headers: { 'accept-language': 'en-IN' } });
    expect(visibleText(en)).toContain('Payment link not found');
  });
});
