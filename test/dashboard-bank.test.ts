import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { csrfOf, DashboardClient, signInByLink } from './helpers/dashboard.js';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * The dashboard's bank page over HTTP, as a browser without JavaScript uses it: the statement
 * uploaded by a file form, errors naming the line, one tap on a suggestion, apply to a buyer or due
 * found by name, ignore; CSRF, sign-in and other businesses' credits.
 */

const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(NOW));

const fixture = (name: string) => readFileSync(new URL(`./fixtures/bank/${name}`, import.meta.url), 'utf8');

/** A statement of credits: [narration, rupees] lines under an SBI-like header. */
function statement(lines: [string, string][]) {
  const rows = lines.map(([text, amount], i) => `20/11/2026,"${text}",REF${i},,"${amount}",`);
  return `Statement of account\n\nDate,Narration,Ref No.,Withdrawal,Deposit,Balance\n${rows.join('\n')}\n`;
}

/** The upload form as the page serves it: its CSRF token, the file under `statement`. */
async function uploadPage(client: DashboardClient, csv: string, fields: Record<string, string> = {}) {
  const page = await client.get('/dashboard/bank');
  expect(page.status, page.text).toBe(200);
  return client.upload(
    '/dashboard/bank',
    { _csrf: csrfOf(page.text), ...fields },
    { statement: ['statement.csv', csv] },
  );
}

type Credit = {
  id: string;
  status: string;
  matched_by: string | null;
  transaction_id: string | null;
  contact_id: string | null;
  suggestions: { transaction_id: string | null; contact_id: string | null; reason: string }[];
};

async function credits(biz: TestBusiness, query = ''): Promise<Credit[]> {
  const res = await biz.get(`/v1/bank-credits${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The text of a page without its tags (entities as the page wrote them). */
const textOf = (html: string) =>
  html
    .replace(/<(style|script)>[^<]*<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

describe('the bank page without a session', () => {
  it('answers 303 to sign in, for every page and form, and records nothing', async () => {
    const biz = await h.newBusiness();
    const client = new DashboardClient(h);
    for (const url of ['/dashboard/bank', `/dashboard/bank/credits/${MISSING}`]) {
      const res = await client.get(url);
      expect([res.status, res.location], url).toEqual([303, '/dashboard/login']);
    }
    const upload = await client.upload(
      '/dashboard/bank',
      { _csrf: 'x' },
      { statement: ['s.csv', fixture('hdfc.csv')] },
    );
    expect([upload.status, upload.location]).toEqual([303, '/dashboard/login']);
    for (const action of ['apply', 'ignore']) {
      const res = await client.request('POST', `/dashboard/bank/credits/${MISSING}/${action}`, { _csrf: 'x' });
      expect([res.status, res.location], action).toEqual([303, '/dashboard/login']);
    }
    expect(await credits(biz)).toEqual([]);
  });
});

describe('uploading a statement from the bank page', () => {
  it('matches what it can, lists the rest with suggestions, and counts them on Home', async () => {
    const biz = await h.newBusiness();
    const ravi = await newDue(biz, { contact_name: 'Ravi Kumar', amount_paise: 1_234_500, invoice_number: 'INV-1001' });
    await newDue(biz, { contact_name: 'Mehta Stores', amount_paise: 20_000_000, invoice_number: 'INV-1002' });
    const gupta = await newDue(biz, { contact_name: 'Gupta and Sons', amount_paise: 700_000 });
    const client = await signInByLink(h, biz.business.id);
    expect(textOf((await client.get('/dashboard')).text)).not.toContain('money received to check');

    const res = await uploadPage(client, fixture('hdfc.csv'));
    expect(res.status, res.text).toBe(200);
    const text = textOf(res.text);
    expect(text).toContain(
      'Read 5 lines: 4 new money received, 2 matched, 1 with suggestions, 1 not matched, 0 uploaded before.',
    );
    expect(text).toContain('Money received to check (2)');
    // The suggestion by name, one tap away; the unmatched credit can be sent to a buyer or ignored.
    const [suggested] = await credits(biz, '?status=suggested');
    expect(res.text).toContain(`action="/dashboard/bank/credits/${suggested?.id}/apply"`);
    expect(res.text).toContain(`name="contact_id" value="${gupta.contact_id}"`);
    expect(text).toContain("Accept: Gupta and Sons, account · ₹7,000.00 the buyer's name is in the bank's narration");
    expect(text).toContain('UPI-PRIYA SINGH-priya.s@oksbi-SBIN0004321-630912345670-NA');
    // Matched: the due it paid and how.
    expect(res.text).toContain(`href="/dashboard/dues/${ravi.id}"`);
    expect(text).toContain('Ravi Kumar · INV-1001 · invoice number in the narration');

    const home = textOf((await client.get('/dashboard')).text);
    expect(home).toContain('Bank: 2 money received to check');
    const again = await uploadPage(client, fixture('hdfc.csv'));
    expect(textOf(again.text)).toContain('Read 5 lines: 0 new money received, 0 matched');
    expect(await credits(biz)).toHaveLength(4);
  });

  it('names the line it cannot read, in the business language, and records nothing', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const bad = await uploadPage(
      client,
      statement([
        ['one', '10.00'],
        ['two', 'ten'],
      ]),
    );
    expect(bad.status).toBe(400);
    expect(textOf(bad.text)).toContain('Line 5: "ten" is not an amount. Nothing was recorded.');
    const none = await uploadPage(client, 'Name,Amount\nRavi,100\n');
    expect(none.status).toBe(400);
    expect(textOf(none.text)).toContain('No heading row in the first 30 lines');
    const date = await uploadPage(client, statement([['one', '10.00']]).replace('20/11/2026', '31/02/2026'));
    expect(textOf(date.text)).toContain('Line 4: "31/02/2026" is not a date.');
    const empty = await uploadPage(client, '');
    expect([empty.status, textOf(empty.text).includes('Choose the statement file first.')]).toEqual([400, true]);
    // A body that is not the multipart it says it is: 400, never a 500.
    const page = await client.get('/dashboard/bank');
    const broken = await client.request('POST', '/dashboard/bank', undefined, {
      payload: Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrfOf(page.text)}`),
      contentType: 'multipart/form-data; boundary=xyz',
    });
    expect(broken.status).toBe(400);
    expect(await credits(biz)).toEqual([]);

    const hindi = await h.newBusiness({ language: 'hi' });
    const hc = await signInByLink(h, hindi.business.id);
    const hi = await uploadPage(hc, statement([['two', 'ten']]));
    expect(hi.status).toBe(400);
    expect(textOf(hi.text)).toContain('लाइन 4: "ten" रकम नहीं है। कुछ भी दर्ज नहीं किया गया।');
    const ok = await uploadPage(hc, statement([['NEFT-KOI NAHIN', '10.00']]));
    expect(textOf(ok.text)).toContain('1 लाइनें पढ़ी गईं: 1 नई जमा रकम, 0 मिलाई गईं, 0 के सुझाव हैं, 1 नहीं मिलीं');
  });

  it('refuses a form without its CSRF token (403) and records nothing', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const res = await client.upload('/dashboard/bank', {}, { statement: ['s.csv', fixture('sbi.csv')] });
    expect(res.status).toBe(403);
    const wrong = await client.upload(
      '/dashboard/bank',
      { _csrf: 'not-the-token' },
      { statement: ['s.csv', fixture('sbi.csv')] },
    );
    expect(wrong.status).toBe(403);
    expect(await credits(biz)).toEqual([]);
  });
});

describe('deciding a waiting credit from the bank page', () => {
  async function setUp() {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Kiran Rao', amount_paise: 40_000 });
    const other = await newDue(biz, { contact_name: 'Sunil Traders', amount_paise: 90_000, invoice_number: 'B-9' });
    const client = await signInByLink(h, biz.business.id);
    const res = await uploadPage(
      client,
      statement([
        ['UPI-K RAO-kiran.rao@okhdfcbank-630500000001', '400.00'],
        ['NEFT-SOME PARTY', '25.00'],
      ]),
    );
    expect(res.status, res.text).toBe(200);
    const [first, second] = await credits(biz);
    const suggested = [first, second].find((c) => c?.status === 'suggested') as Credit;
    const unmatched = [first, second].find((c) => c?.status === 'unmatched') as Credit;
    return { biz, client, due, other, suggested, unmatched };
  }

  it('accepts a suggestion with one tap: matched by the owner, the due paid, a second tap is 409', async () => {
    const { biz, client, due, suggested } = await setUp();
    expect(suggested.suggestions[0]).toEqual({ transaction_id: due.id, contact_id: due.contact_id, reason: 'amount' });
    const page = await client.get('/dashboard/bank');
    expect(textOf(page.text)).toContain(
      "Accept: Kiran Rao · 1 December 2026 · ₹400.00 the due's balance is this amount",
    );
    const tap = await client.submit('/dashboard/bank', `/dashboard/bank/credits/${suggested.id}/apply`, {
      transaction_id: due.id,
    });
    expect([tap.status, tap.location]).toEqual([303, '/dashboard/bank?ok=applied']);
    const after = await client.get(tap.location as string);
    expect(textOf(after.text)).toContain("The money was recorded in the buyer's account.");
    expect(textOf(after.text)).toContain('Kiran Rao · matched by you');
    const [matched] = await credits(biz, '?status=matched');
    expect(matched).toMatchObject({ id: suggested.id, matched_by: 'owner', transaction_id: due.id });
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.status).toBe('paid');

    const twice = await client.submit('/dashboard/bank', `/dashboard/bank/credits/${suggested.id}/apply`, {
      transaction_id: due.id,
    });
    expect(twice.status).toBe(409);
    expect(textOf(twice.text)).toContain('This money was already matched or ignored.');
    expect((await biz.get(`/v1/contacts/${due.contact_id}/payments`)).body.data).toHaveLength(1);
  });

  it('applies a credit to a buyer or a due found by name on its page, and ignores one', async () => {
    const { biz, client, other, unmatched, suggested } = await setUp();
    const url = `/dashboard/bank/credits/${unmatched.id}`;
    const page = await client.get(`${url}?q=sunil`);
    expect(page.status, page.text).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain('Money received: ₹25.00 on 20 November 2026');
    expect(text).toContain('Apply to the account of Sunil Traders');
    expect(text).toContain('Apply to this due: Sunil Traders · B-9 · ₹900.00');
    expect(textOf((await client.get(`${url}?q=nobody`)).text)).toContain('No buyer or open due matches.');

    const applied = await client.submit(`${url}?q=sunil`, `${url}/apply`, { transaction_id: other.id });
    expect([applied.status, applied.location]).toEqual([303, '/dashboard/bank?ok=applied']);
    expect((await biz.get(`/v1/transactions/${other.id}`)).body.data.balance_paise).toBe(90_000 - 2_500);
    // Decided: its page says so and offers nothing to do.
    const decided = await client.get(url);
    expect(textOf(decided.text)).toContain('Status: Matched');
    expect(decided.text).not.toContain('/apply"');

    const ignored = await client.submit('/dashboard/bank', `/dashboard/bank/credits/${suggested.id}/ignore`);
    expect([ignored.status, ignored.location]).toEqual([303, '/dashboard/bank?ok=ignored']);
    expect(textOf((await client.get('/dashboard/bank?ok=ignored')).text)).toContain(
      "The money was set aside: not a buyer's payment. ",
    );
    expect(await credits(biz, '?status=ignored')).toMatchObject([{ id: suggested.id }]);
    expect(textOf((await client.get('/dashboard/bank')).text)).toContain('Money received to check (0)');
  });

  it('refuses a decision without its CSRF token (403), a bad target (400), and changes nothing', async () => {
    const { biz, client, due, suggested, unmatched } = await setUp();
    const apply = await client.request('POST', `/dashboard/bank/credits/${suggested.id}/apply`, {
      transaction_id: due.id,
    });
    expect(apply.status).toBe(403);
    const ignore = await client.request('POST', `/dashboard/bank/credits/${unmatched.id}/ignore`, { _csrf: 'nope' });
    expect(ignore.status).toBe(403);
    const bad: Record<string, string>[] = [
      {},
      { transaction_id: 'not-an-id' },
      { transaction_id: due.id, contact_id: due.contact_id },
    ];
    for (const fields of bad) {
      const res = await client.submit('/dashboard/bank', `/dashboard/bank/credits/${suggested.id}/apply`, fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(textOf(res.text)).toContain('Choose a buyer or a due.');
    }
    expect((await credits(biz)).map((c) => c.status).sort()).toEqual(['suggested', 'unmatched']);
  });

  it("answers 404 for another business's credit, due or contact, and for an id that is not one", async () => {
    const { biz, client, due, suggested } = await setUp();
    const stranger = await h.newBusiness();
    const theirs = await newDue(stranger, { contact_name: 'Their Buyer', amount_paise: 40_000 });
    const sc = await signInByLink(h, stranger.business.id);
    expect((await sc.get(`/dashboard/bank/credits/${suggested.id}`)).status).toBe(404);
    for (const action of ['apply', 'ignore']) {
      const res = await sc.submit('/dashboard/bank', `/dashboard/bank/credits/${suggested.id}/${action}`, {
        transaction_id: theirs.id,
      });
      expect(res.status, action).toBe(404);
    }
    const theirIds: Record<string, string>[] = [{ transaction_id: theirs.id }, { contact_id: theirs.contact_id }];
    for (const fields of theirIds) {
      const res = await client.submit('/dashboard/bank', `/dashboard/bank/credits/${suggested.id}/apply`, fields);
      expect(res.status, JSON.stringify(fields)).toBe(404);
    }
    expect((await client.get('/dashboard/bank/credits/not-a-uuid')).status).toBe(404);
    expect((await client.get(`/dashboard/bank/credits/${MISSING}`)).status).toBe(404);
    expect((await credits(biz)).map((c) => c.status).sort()).toEqual(['suggested', 'unmatched']);
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.status).not.toBe('paid');
    expect((await stranger.get(`/v1/transactions/${theirs.id}`)).body.data.amount_paid_paise).toBe(0);
  });
});
