import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { formatMoney } from '../src/i18n/format.js';
import { DashboardClient as Client, csrfOf, type DashboardClient, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * The owner's ledger on the dashboard (PRODUCT part 20), over HTTP as a browser without
 * JavaScript: Home's total and buyers, the buyer's page and each of its forms, the statement,
 * reversal and the other confirmations, did-you-mean, settings.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z' });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set('2026-03-10T06:00:00.000Z'));

const LIMIT = 60 * 1024;

async function due(biz: TestBusiness, body: Record<string, unknown>) {
  const res = await biz.post('/v1/transactions', { due_date: '2026-03-20', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string; contact_id: string };
}

async function contactOf(biz: TestBusiness, id: string) {
  return (await biz.get(`/v1/contacts/${id}`)).body.data as {
    name: string;
    phone: string | null;
    balance_paise: number;
    credit_paise: number;
    language: string | null;
    account_url: string;
  };
}

/** Posts one form of a page with that page's CSRF token, as the browser would. */
async function post(client: DashboardClient, page: string, action: string, fields: Record<string, string>) {
  return client.submit(page, action, fields);
}

/** The visible text of a page: tags dropped, entities of the escaper decoded, spaces folded. */
function textOf(page: string): string {
  return page
    .replace(/<style>[\s\S]*?<\/style>|<script>[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

describe('Home', () => {
  it('shows the total to collect, the buyers who owe most (balance, days overdue) each a link, and the banner until a UPI id is set', async () => {
    const biz = await h.newBusiness();
    const ravi = await due(biz, { amount_paise: 500_000, contact_name: 'Ravi Kumar', due_date: '2026-03-01' });
    await due(biz, { amount_paise: 200_000, contact_name: 'Meena Stores' });
    const gupta = await due(biz, { amount_paise: 900_000, contact_name: 'Gupta Hardware', due_date: '2026-02-08' });
    const client = await signInByLink(h, biz.business.id);
    const home = await client.get('/dashboard');
    expect(home.status).toBe(200);
    const text = textOf(home.text);
    expect(text).toContain('To collect ₹16,000.00');
    // most first, with the days since the oldest open due's date
    const order = ['Gupta Hardware', 'Ravi Kumar', 'Meena Stores'].map((n) => text.indexOf(n));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('Gupta Hardware Overdue 30 days ₹9,000.00');
    expect(text).toContain('Ravi Kumar Overdue 9 days ₹5,000.00');
    expect(home.text).toContain(`href="/dashboard/contacts/${gupta.contact_id}"`);
    expect(home.text).toContain(`href="/dashboard/contacts/${ravi.contact_id}"`);
    expect(text).toContain('Buyers cannot pay you online yet: add your UPI id.');
    expect(Buffer.byteLength(home.text)).toBeLessThan(LIMIT);

    await h.services.businesses.update(biz.business.id, { upiId: 'shop@okicici' });
    expect(textOf((await client.get('/dashboard')).text)).not.toContain('Buyers cannot pay you online');
  });
});

describe('contacts list', () => {
  it('is sorted by balance by default, sortable by name, and searchable', async () => {
    const biz = await h.newBusiness();
    await due(biz, { amount_paise: 100_000, contact_name: 'Anil Traders' });
    await due(biz, { amount_paise: 300_000, contact_name: 'Zeba Stores' });
    await due(biz, { amount_paise: 200_000, contact_name: 'Mohan Lal' });
    const client = await signInByLink(h, biz.business.id);
    const names = (html: string) =>
      [...html.matchAll(/<a href="\/dashboard\/contacts\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    expect(names((await client.get('/dashboard/contacts')).text)).toEqual(['Zeba Stores', 'Mohan Lal', 'Anil Traders']);
    expect(names((await client.get('/dashboard/contacts?sort=name')).text)).toEqual([
      'Anil Traders',
      'Mohan Lal',
      'Zeba Stores',
    ]);
    expect(names((await client.get('/dashboard/contacts?q=mohan')).text)).toEqual(['Mohan Lal']);
    // an unknown sort is the default
    expect(names((await client.get('/dashboard/contacts?sort=bogus')).text)[0]).toBe('Zeba Stores');
  });
});

describe("a buyer's page", () => {
  it('shows the balance first, then the entries with a running balance, then the replies; under 60 KB', async () => {
    const biz = await h.newBusiness();
    const d1 = await due(biz, { amount_paise: 500_000, contact_name: 'Ravi Kumar', invoice_number: 'INV-7' });
    await due(biz, { amount_paise: 250_000, contact_id: d1.contact_id });
    await biz.post(`/v1/contacts/${d1.contact_id}/payments`, { amount_paise: 100_000, payment_method: 'cash' });
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/contacts/${d1.contact_id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    const balance = text.indexOf('To collect: ₹6,500.00');
    const entries = text.indexOf('Entries');
    const replies = text.indexOf('Messages from this buyer');
    expect(balance).toBeGreaterThan(0);
    expect(entries).toBeGreaterThan(balance);
    expect(replies).toBeGreaterThan(entries);
    // newest first, each with the balance after it
    expect(text).toContain('Received · Cash');
    expect(text).toContain('−₹1,000.00 Balance ₹6,500.00');
    expect(text).toContain('+₹2,500.00 Balance ₹7,500.00');
    expect(text).toContain('Invoice INV-7');
    expect(text).toContain('+₹5,000.00 Balance ₹5,000.00');
    for (const name of [
      'Received money',
      'New due',
      'Send reminder',
      'Share account link',
      'Statement',
      'Edit buyer',
    ]) {
      expect(page.text, name).toContain(`<summary>${name}</summary>`);
    }
    expect(Buffer.byteLength(page.text)).toBeLessThan(LIMIT);
  });

  it('"Share account link" is a WhatsApp link to the buyer with the account page URL', async () => {
    const biz = await h.newBusiness({ name: 'Sharma & Sons' });
    const d = await due(biz, { amount_paise: 120_000, contact_name: 'Ravi Kumar', contact_phone: '98765 43210' });
    const contact = await contactOf(biz, d.contact_id);
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/contacts/${d.contact_id}`);
    const href = /href="(https:\/\/wa\.me\/[^"]+)"[^>]*>Share account link</
      .exec(page.text)?.[1]
      ?.replace(/&amp;/g, '&');
    expect(href).toBeDefined();
    const url = new URL(href as string);
    expect(url.pathname).toBe('/919876543210');
    expect(url.searchParams.get('text')).toBe(
      `Hello Ravi Kumar, your account with Sharma & Sons: ₹1,200.00 to pay. See it and pay here: ${contact.account_url}`,
    );
  });
});

describe("a buyer's entries", () => {
  const money = (paise: number) => formatMoney('en', paise, 'INR');

  /** The entries on a buyer's page, in the page's order: each one's amount and the balance after it. */
  function entriesOf(page: string): string[] {
    const list = /<ol class="list" reversed>([\s\S]*?)<\/ol>/.exec(page)?.[1] ?? '';
    return [...textOf(list).matchAll(/([+−]₹[\d,]+\.\d\d) Balance (₹[\d,]+\.\d\d)/g)].map((m) => `${m[1]} ${m[2]}`);
  }

  it('show the newest 50 of more, whatever their kind, with the running balance and a link to the older ones', async () => {
    const biz = await h.newBusiness();
    // What was recorded, to recompute the ledger: when, in the statement's order within one instant, and the amount.
    const rows: { at: number; order: number; id: string; paise: number }[] = [];
    const order = { due: 0, adjustment: 1, payment: 2, reversal: 3 };
    const at = () => h.clock.now().getTime();
    // Twelve dues at one instant (an import) long ago: the newest of them by id are the oldest shown.
    h.clock.set('2025-08-01T06:00:00.000Z');
    const first = await due(biz, { amount_paise: 10_000, contact_name: 'Ravi Kumar' });
    const contactId = first.contact_id;
    rows.push({ at: at(), order: order.due, id: first.id, paise: 10_000 });
    for (let i = 2; i <= 12; i += 1) {
      const d = await due(biz, { amount_paise: i * 10_000, contact_id: contactId });
      rows.push({ at: at(), order: order.due, id: d.id, paise: i * 10_000 });
    }
    h.clock.set('2026-03-10T06:00:00.000Z');
    let lastDue = '';
    let lastReceipt = { id: '', paise: 0 };
    for (let k = 0; k < 48; k += 1) {
      h.clock.advance(60_000);
      const step = k % 8;
      if (step === 4) {
        const paise = 3_000 + k;
        const res = await biz.post(`/v1/contacts/${contactId}/payments`, {
          amount_paise: paise,
          payment_method: 'cash',
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        lastReceipt = { id: res.body.data.receipt.id, paise };
        rows.push({ at: at(), order: order.payment, id: lastReceipt.id, paise: -paise });
      } else if (step === 6) {
        const paise = 500 + k;
        const res = await biz.post(`/v1/transactions/${lastDue}/adjustments`, { kind: 'tds', amount_paise: paise });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        rows.push({ at: at(), order: order.adjustment, id: res.body.data.adjustment.id, paise: -paise });
      } else if (step === 7) {
        const res = await biz.post(`/v1/payments/${lastReceipt.id}/reverse`, { reason: 'cheque bounced' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        rows.push({ at: at(), order: order.reversal, id: lastReceipt.id, paise: lastReceipt.paise });
      } else {
        const paise = 5_000 + k * 100;
        lastDue = (await due(biz, { amount_paise: paise, contact_id: contactId })).id;
        rows.push({ at: at(), order: order.due, id: lastDue, paise });
      }
    }
    rows.sort((a, b) => a.at - b.at || a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let balance = 0;
    const ledger = rows.map((r) => {
      balance += r.paise;
      return `${r.paise > 0 ? '+' : '−'}${money(Math.abs(r.paise))} ${money(balance)}`;
    });
    expect((await contactOf(biz, contactId)).balance_paise).toBe(balance);

    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/contacts/${contactId}`);
    expect(page.status).toBe(200);
    expect(rows).toHaveLength(60);
    expect(entriesOf(page.text)).toEqual(ledger.slice(-50).reverse());
    const opening = rows.slice(0, 10).reduce((sum, r) => sum + r.paise, 0);
    expect(textOf(page.text)).toContain(`Opening balance: ${money(opening)}`);
    const older = /href="([^"]+)">Older entries</.exec(page.text)?.[1]?.replace(/&amp;/g, '&');
    // the 90 days up to the oldest shown entry's date: the import, all of it
    expect(older).toBe(`/dashboard/contacts/${contactId}/statement?from=2025-05-03&to=2025-08-01`);
    const statement = await client.get(older as string);
    expect(statement.status).toBe(200);
    expect(textOf(statement.text)).toContain(
      `Closing balance ${money(rows.slice(0, 12).reduce((sum, r) => sum + r.paise, 0))}`,
    );

    const other = await signInByLink(h, (await h.newBusiness()).business.id);
    expect((await other.get(`/dashboard/contacts/${contactId}`)).status).toBe(404);
  });

  it('show entries older than 90 days, and no link to older ones when every entry is shown', async () => {
    h.clock.set('2025-06-01T06:00:00.000Z');
    const biz = await h.newBusiness();
    const d = await due(biz, {
      amount_paise: 700_000,
      contact_name: 'Ravi Kumar',
      invoice_number: 'INV-OLD',
      due_date: '2025-06-15',
    });
    await biz.post(`/v1/contacts/${d.contact_id}/payments`, { amount_paise: 200_000, payment_method: 'cash' });
    h.clock.set('2026-03-10T06:00:00.000Z');
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/contacts/${d.contact_id}`);
    expect(page.status).toBe(200);
    expect(entriesOf(page.text)).toEqual(['−₹2,000.00 ₹5,000.00', '+₹7,000.00 ₹7,000.00']);
    const text = textOf(page.text);
    expect(text).toContain('Invoice INV-OLD');
    expect(text).toContain('Opening balance: ₹0.00');
    expect(text).not.toContain('No entries yet');
    expect(page.text).not.toContain('Older entries');
  });

  it('say so when the buyer has no entries', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    expect((await biz.delete(`/v1/transactions/${d.id}`)).status).toBe(200);
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/contacts/${d.contact_id}`);
    expect(page.status).toBe(200);
    expect(entriesOf(page.text)).toEqual([]);
    expect(textOf(page.text)).toContain('No entries yet.');
  });
});

describe('"Received money"', () => {
  it('records a receipt against the buyer (oldest due first, the rest as credit), once per form', async () => {
    const biz = await h.newBusiness();
    const d1 = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar', due_date: '2026-03-01' });
    const d2 = await due(biz, { amount_paise: 100_000, contact_id: d1.contact_id });
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/contacts/${d1.contact_id}`;
    const form = await client.get(page);
    const once = /name="once" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const fields = { _csrf: csrfOf(form.text), once, amount: '2,500', payment_method: 'upi', utr: 'UTR123' };
    const res = await client.request('POST', `${page}/payments`, fields);
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe(`${page}?ok=received`);
    // the same form sent again (a double tap) records nothing more
    expect((await client.request('POST', `${page}/payments`, fields)).status).toBe(303);
    const receipts = (await biz.get(`/v1/contacts/${d1.contact_id}/payments`)).body.data;
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      amount_paise: 250_000,
      applied_paise: 200_000,
      credit_paise: 50_000,
      utr: 'UTR123',
      payment_method: 'upi',
      source: 'dashboard',
    });
    expect((await biz.get(`/v1/transactions/${d2.id}`)).body.data.status).toBe('paid');
    expect(await contactOf(biz, d1.contact_id)).toMatchObject({ balance_paise: -50_000, credit_paise: 50_000 });
    const after = await client.get(`${page}?ok=received`);
    expect(textOf(after.text)).toContain('The money was recorded.');
    expect(textOf(after.text)).toContain('Advance: ₹500.00');
  });

  it('answers 400 naming the field, keeps the form open with what was typed, and records nothing', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/contacts/${d.contact_id}`;
    for (const [fields, field] of [
      [{ amount: 'ten', payment_method: 'cash' }, 'amount'],
      [{ amount: '10', payment_method: 'cheque' }, 'payment_method'],
      [{ amount: '10', received_on: '2026-02-30' }, 'received_on'],
      [{ amount: '10', utr: 'x'.repeat(61) }, 'utr'],
    ] as const) {
      const res = await post(client, page, `${page}/payments`, fields);
      expect(res.status, field).toBe(400);
      expect(res.text).toContain(field);
      expect(res.text).toContain('<details class="card fold" id="receive" open>');
    }
    expect((await biz.get(`/v1/contacts/${d.contact_id}/payments`)).body.data).toHaveLength(0);
  });
});

describe('"New due", "Send reminder", "Edit buyer" and "Statement"', () => {
  it('"New due" adds a due to this buyer; a bad date is 400 naming due_date', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/contacts/${d.contact_id}`;
    const bad = await post(client, page, `${page}/dues`, { amount: '500', due_date: '2026-13-01' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('due_date');
    const res = await post(client, page, `${page}/dues`, {
      amount: '500',
      due_date: '2026-04-01',
      invoice_number: 'B-2',
    });
    expect(res.status, res.text).toBe(303);
    const list = (await biz.get(`/v1/transactions?contact_id=${d.contact_id}`)).body.data;
    expect(list).toHaveLength(2);
    expect(list.find((t: { invoice_number: string }) => t.invoice_number === 'B-2')).toMatchObject({
      amount_paise: 50_000,
      due_date: '2026-04-01T00:00:00.000Z',
    });
  });

  it('"Send reminder" reminds the oldest open due over the chat channel; with nothing owed it is 409', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar', contact_phone: '98765 43210' });
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/contacts/${d.contact_id}`;
    const channel = h.services.channel as LogChannel;
    const before = channel.messages.length;
    const res = await post(client, page, `${page}/remind`, {});
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe(`${page}?ok=reminded`);
    expect(channel.messages.slice(before).some((m) => m.to === '919876543210')).toBe(true);
    const none = await due(biz, { amount_paise: 100_000, contact_name: 'Paid Up' });
    await biz.post(`/v1/transactions/${none.id}/mark-paid`, {});
    const nothing = await post(
      client,
      `/dashboard/contacts/${none.contact_id}`,
      `/dashboard/contacts/${none.contact_id}/remind`,
      {},
    );
    expect(nothing.status).toBe(409);
  });

  it('"Edit buyer" fixes the phone, the name and the language; a bad phone is 400 naming phone, a taken name 409', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumr' });
    await due(biz, { amount_paise: 100_000, contact_name: 'Meena Stores' });
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/contacts/${d.contact_id}`;
    const badPhone = await post(client, page, `${page}/edit`, { name: 'Ravi Kumar', phone: '12', language: '' });
    expect(badPhone.status).toBe(400);
    expect(badPhone.text).toContain('phone');
    const badLanguage = await post(client, page, `${page}/edit`, { name: 'Ravi Kumar', phone: '', language: 'fr' });
    expect(badLanguage.status).toBe(400);
    expect(badLanguage.text).toContain('language');
    const taken = await post(client, page, `${page}/edit`, { name: 'meena stores', phone: '', language: '' });
    expect(taken.status).toBe(409);
    expect(await contactOf(biz, d.contact_id)).toMatchObject({ name: 'Ravi Kumr', phone: null, language: null });
    const ok = await post(client, page, `${page}/edit`, { name: 'Ravi Kumar', phone: '98765 43210', language: 'hi' });
    expect(ok.status, ok.text).toBe(303);
    expect(await contactOf(biz, d.contact_id)).toMatchObject({
      name: 'Ravi Kumar',
      phone: '919876543210',
      language: 'hi',
    });
  });

  it('"Statement" is a printable page of the period and a CSV with the running balance', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    await biz.post(`/v1/contacts/${d.contact_id}/payments`, { amount_paise: 40_000 });
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/contacts/${d.contact_id}/statement?from=2026-03-01&to=2026-03-31`);
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain('Statement: Ravi Kumar');
    expect(text).toContain('Opening balance ₹0.00');
    expect(text).toContain('Closing balance ₹600.00');
    expect(page.text).toContain('@media print');
    const csv = await client.get(`/dashboard/contacts/${d.contact_id}/statement.csv?from=2026-03-01&to=2026-03-31`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('date,kind,transaction_id,receipt_id,description,debit_paise,credit_paise,balance_paise');
    expect(lines.slice(1).map((l) => l.split(',').at(-1))).toEqual(['100000', '60000']);
    const bad = await client.get(`/dashboard/contacts/${d.contact_id}/statement?from=2026-04-01&to=2026-03-01`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('from');
  });
});

describe('reversing a receipt', () => {
  it('asks on a second step with a reason, then shows the receipt as reversed and the due open again', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const receipt = (await biz.post(`/v1/contacts/${d.contact_id}/payments`, { amount_paise: 100_000 })).body.data
      .receipt;
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/contacts/${d.contact_id}`;
    const ledger = await client.get(page);
    const confirmUrl = `${page}/payments/${receipt.id}/reverse`;
    expect(ledger.text).toContain(`href="${confirmUrl}"`);
    const confirm = await client.get(confirmUrl);
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text)).toContain('Reverse this payment?');
    expect((await biz.get(`/v1/payments/${receipt.id}`)).body.data.reversed_at).toBeNull();
    const noReason = await post(client, confirmUrl, confirmUrl, { reason: '' });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain('reason');
    expect((await biz.get(`/v1/payments/${receipt.id}`)).body.data.reversed_at).toBeNull();
    const res = await post(client, confirmUrl, confirmUrl, { reason: 'cheque bounced' });
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe(`${page}?ok=reversed`);
    expect((await biz.get(`/v1/payments/${receipt.id}`)).body.data.reversed_at).not.toBeNull();
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data.status).toBe('pending');
    const after = textOf((await client.get(page)).text);
    expect(after).toContain('Received Reversed');
    expect(after).toContain('Payment reversed · cheque bounced');
    expect(after).toContain('To collect: ₹1,000.00');
    const again = await post(client, confirmUrl, confirmUrl, { reason: 'twice' });
    expect(again.status).toBe(409);
  });

  it("another buyer's receipt is 404 on this buyer's page", async () => {
    const biz = await h.newBusiness();
    const a = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const b = await due(biz, { amount_paise: 100_000, contact_name: 'Meena Stores' });
    const receipt = (await biz.post(`/v1/contacts/${b.contact_id}/payments`, { amount_paise: 100_000 })).body.data
      .receipt;
    const client = await signInByLink(h, biz.business.id);
    const url = `/dashboard/contacts/${a.contact_id}/payments/${receipt.id}/reverse`;
    expect((await client.get(url)).status).toBe(404);
    const res = await post(client, `/dashboard/contacts/${a.contact_id}`, url, { reason: 'wrong' });
    expect(res.status).toBe(404);
    expect((await biz.get(`/v1/payments/${receipt.id}`)).body.data.reversed_at).toBeNull();
  });
});

describe('adding a due: did you mean', () => {
  it('the same name in another case is that buyer; a close name asks, and the owner picks or confirms a new buyer', async () => {
    const biz = await h.newBusiness();
    const ravi = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar', contact_phone: '98765 43210' });
    const client = await signInByLink(h, biz.business.id);
    const add = (fields: Record<string, string>) =>
      post(client, '/dashboard/dues/new', '/dashboard/dues', { amount: '100', due_date: '2026-04-01', ...fields });
    const count = async () => (await biz.get('/v1/contacts')).body.data.length as number;

    const same = await add({ contact_name: 'RAVI KUMAR' });
    expect(same.status, same.text).toBe(303);
    expect(await count()).toBe(1);

    for (const typed of ['Ravi Kumaar', 'ravi kumr', 'Ravi']) {
      const asked = await add({ contact_name: typed });
      expect(asked.status, typed).toBe(200);
      expect(textOf(asked.text)).toContain('Did you mean Ravi Kumar?');
      expect(await count()).toBe(1);
    }
    // the suggestion's button carries the buyer
    const asked = await add({ contact_name: 'Ravi Kumaar' });
    const pick = new RegExp(`name="contact_id" value="${ravi.contact_id}">Did you mean Ravi Kumar\\?`);
    expect(asked.text).toMatch(pick);
    const picked = await add({ contact_name: 'Ravi Kumaar', contact_id: ravi.contact_id });
    expect(picked.status, picked.text).toBe(303);
    expect(await count()).toBe(1);
    expect((await biz.get(`/v1/transactions?contact_id=${ravi.contact_id}`)).body.data).toHaveLength(3);

    const confirmed = await add({ contact_name: 'Ravi Kumaar', new_contact: '1' });
    expect(confirmed.status, confirmed.text).toBe(303);
    expect(await count()).toBe(2);

    // a name not close to any buyer is added at once
    expect((await add({ contact_name: 'Gupta Hardware' })).status).toBe(303);
    expect(await count()).toBe(3);
  });

  it('a picked buyer of another business is 404 and adds nothing; a bad id is 400 naming contact_id', async () => {
    const owner = await h.newBusiness();
    const other = await h.newBusiness();
    const theirs = await due(other, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const client = await signInByLink(h, owner.business.id);
    const res = await post(client, '/dashboard/dues/new', '/dashboard/dues', {
      contact_name: 'Ravi Kumar',
      contact_id: theirs.contact_id,
      amount: '100',
      due_date: '2026-04-01',
    });
    expect(res.status).toBe(404);
    const bad = await post(client, '/dashboard/dues/new', '/dashboard/dues', {
      contact_name: 'Ravi Kumar',
      contact_id: 'nope',
      amount: '100',
      due_date: '2026-04-01',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('contact_id');
    expect((await owner.get('/v1/transactions')).body.data).toHaveLength(0);
    expect((await other.get('/v1/transactions')).body.data).toHaveLength(1);
  });
});

describe('marking fully paid and deleting', () => {
  it('ask on a second step: the due page links to a confirmation, and nothing changes until it is sent', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/dues/${d.id}`);
    expect(page.text).toContain(`href="/dashboard/dues/${d.id}/mark-paid"`);
    expect(page.text).toContain(`href="/dashboard/dues/${d.id}/delete"`);
    expect(page.text).not.toContain(`action="/dashboard/dues/${d.id}/mark-paid"`);
    expect(page.text).not.toContain(`action="/dashboard/dues/${d.id}/delete"`);
    const markPaid = await client.get(`/dashboard/dues/${d.id}/mark-paid`);
    expect(textOf(markPaid.text)).toContain('Mark this due fully paid?');
    expect(textOf(markPaid.text)).toContain('Ravi Kumar: the balance of ₹1,000.00');
    const remove = await client.get(`/dashboard/dues/${d.id}/delete`);
    expect(textOf(remove.text)).toContain('Delete this due?');
    expect((await biz.get(`/v1/transactions/${d.id}`)).body.data.status).toBe('pending');
    const done = await post(client, `/dashboard/dues/${d.id}/delete`, `/dashboard/dues/${d.id}/delete`, {});
    expect(done.status).toBe(303);
    expect((await biz.get(`/v1/transactions/${d.id}`)).status).toBe(404);
  });
});

describe('settings', () => {
  it('change the business name and language (the dashboard turns Hindi); bad ones are 400 naming the field', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const save = (fields: Record<string, string>) =>
      post(client, '/dashboard/settings', '/dashboard/settings', {
        name: 'Sharma Traders',
        language: 'en',
        upi_id: '',
        reminder_steps: '-3,0,7,30',
        ...fields,
      });
    const short = await save({ name: 'x' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('name');
    const language = await save({ language: 'fr' });
    expect(language.status).toBe(400);
    expect(language.text).toContain('language');
    expect((await h.services.businesses.get(biz.business.id)).name).toBe(biz.business.name);
    const ok = await save({ name: 'Sharma Traders', language: 'hi', upi_id: 'sharma@okicici' });
    expect(ok.status, ok.text).toBe(303);
    expect(await h.services.businesses.get(biz.business.id)).toMatchObject({
      name: 'Sharma Traders',
      language: 'hi',
      upi_id: 'sharma@okicici',
    });
    const home = await client.get('/dashboard');
    expect(home.text).toContain('<html lang="hi">');
    expect(textOf(home.text)).toContain('कुल बकाया');
    expect(textOf(home.text)).toContain('Sharma Traders');
  });
});

describe('every form of the ledger', () => {
  it('without the CSRF token is 403 and changes nothing', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const receipt = (await biz.post(`/v1/contacts/${d.contact_id}/payments`, { amount_paise: 10_000 })).body.data
      .receipt;
    const client = await signInByLink(h, biz.business.id);
    const base = `/dashboard/contacts/${d.contact_id}`;
    for (const url of [
      `${base}/payments`,
      `${base}/dues`,
      `${base}/remind`,
      `${base}/edit`,
      `${base}/payments/${receipt.id}/reverse`,
      '/dashboard/settings',
    ]) {
      const res = await client.request('POST', url, {
        amount: '10',
        due_date: '2026-04-01',
        name: 'Changed Name',
        reason: 'x',
        language: 'hi',
      });
      expect(res.status, url).toBe(403);
    }
    expect(await contactOf(biz, d.contact_id)).toMatchObject({ name: 'Ravi Kumar', balance_paise: 90_000 });
    expect((await biz.get(`/v1/payments/${receipt.id}`)).body.data.reversed_at).toBeNull();
    expect((await h.services.businesses.get(biz.business.id)).language).toBe('en');
  });

  it('without a session answers 303 to sign in', async () => {
    const biz = await h.newBusiness();
    const d = await due(biz, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const client = new Client(h);
    const base = `/dashboard/contacts/${d.contact_id}`;
    for (const [method, url] of [
      ['GET', base],
      ['GET', `${base}/statement`],
      ['GET', `${base}/statement.csv`],
      ['POST', `${base}/payments`],
      ['POST', `${base}/dues`],
      ['POST', `${base}/remind`],
      ['POST', `${base}/edit`],
      ['GET', `/dashboard/dues/${d.id}/mark-paid`],
      ['GET', `/dashboard/dues/${d.id}/delete`],
    ] as const) {
      const res = await client.request(method, url, method === 'POST' ? { amount: '1' } : undefined);
      expect(res.status, url).toBe(303);
      expect(res.location, url).toBe('/dashboard/login');
    }
  });

  it("another business's buyer, due or receipt is 404 on every page and form, and nothing changes", async () => {
    const owner = await h.newBusiness();
    const other = await h.newBusiness();
    const d = await due(owner, { amount_paise: 100_000, contact_name: 'Ravi Kumar' });
    const receipt = (await owner.post(`/v1/contacts/${d.contact_id}/payments`, { amount_paise: 10_000 })).body.data
      .receipt;
    const client = await signInByLink(h, other.business.id);
    const base = `/dashboard/contacts/${d.contact_id}`;
    for (const url of [
      base,
      `${base}/statement`,
      `${base}/statement.csv`,
      `${base}/payments/${receipt.id}/reverse`,
      `/dashboard/dues/${d.id}/mark-paid`,
      `/dashboard/dues/${d.id}/delete`,
      '/dashboard/contacts/not-a-uuid',
    ]) {
      expect((await client.get(url)).status, url).toBe(404);
    }
    const csrf = csrfOf((await client.get('/dashboard')).text);
    for (const url of [
      `${base}/payments`,
      `${base}/dues`,
      `${base}/remind`,
      `${base}/edit`,
      `${base}/reminders`,
      `${base}/payments/${receipt.id}/reverse`,
    ]) {
      const res = await client.request('POST', url, {
        _csrf: csrf,
        amount: '10',
        due_date: '2026-04-01',
        name: 'Changed Name',
        phone: '',
        language: '',
        reason: 'x',
      });
      expect(res.status, url).toBe(404);
    }
    expect(await contactOf(owner, d.contact_id)).toMatchObject({ name: 'Ravi Kumar', balance_paise: 90_000 });
    expect((await owner.get(`/v1/payments/${receipt.id}`)).body.data.reversed_at).toBeNull();
    expect((await owner.get('/v1/transactions')).body.data).toHaveLength(1);
  });
});
