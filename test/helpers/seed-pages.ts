import { expect } from 'vitest';
import { claimPayment, type DashboardClient, signInByLink } from './dashboard.js';
import type { Harness, TestBusiness } from './harness.js';
import { sendWhatsAppMessage } from './whatsapp-inbound.js';

export interface SeededPages {
  biz: TestBusiness;
  client: DashboardClient;
  dueId: string;
  payPath: string;
  /** the buyer's account page (/a/<token>) */
  accountPath: string;
  /** what the business typed (names, ids): not the page's own words */
  data: string[];
}

const NAMES = {
  hi: { business: 'शर्मा एंड संस', buyers: ['रवि कुमार', 'मीना स्टोर', 'गुप्ता हार्डवेयर'], note: 'सीमेंट के 20 बोरे' },
  en: {
    business: 'Sharma & Sons',
    buyers: ['Ravi Kumar', 'Meena Stores', 'Gupta Hardware'],
    note: '20 bags of cement',
  },
};

/**
 * A business with a bit of everything every page shows: open, overdue and paid dues (and
 * `moreDues` more, to fill the lists), a payment, a buyer's claim on a due and one on the account,
 * replies, a reminder, keys and a webhook; signed in. In Hindi its data is in Devanagari, so a Latin word left on a page is
 * the page's own.
 */
export async function seedPages(
  h: Harness,
  appSecret: string,
  language: 'en' | 'hi',
  moreDues = 0,
): Promise<SeededPages> {
  const names = NAMES[language];
  const [ravi, meena, gupta] = names.buyers as [string, string, string];
  const biz = await h.newBusiness({ name: names.business, language });
  await h.services.businesses.update(biz.business.id, { upiId: 'sharma.sons@okicici' });
  const rows: Record<string, unknown>[] = [
    {
      amount_paise: 12_345_050,
      due_date: '2026-03-20',
      contact_name: ravi,
      contact_phone: '98765 11111',
      invoice_number: 'INV-17',
    },
    { amount_paise: 450_000, due_date: '2026-03-02', contact_name: meena, contact_phone: '98765 22222' },
    { amount_paise: 1_275_000, due_date: '2026-01-15', contact_name: gupta },
    { amount_paise: 210_000, due_date: '2026-02-25', contact_name: ravi, notes: names.note },
  ];
  for (let i = 0; i < moreDues; i++) {
    rows.push({
      amount_paise: 100_000 + i * 1_234,
      due_date: `2026-0${1 + (i % 6)}-1${i % 10}`,
      contact_name: names.buyers[i % 3],
    });
  }
  const dues = [];
  for (const row of rows) {
    const res = await biz.post('/v1/transactions', row);
    expect(res.status, res.text).toBe(201);
    dues.push(res.body.data);
  }
  const [first, second, third, fourth] = dues;
  await biz.post(`/v1/transactions/${first.id}/payments`, { amount_paise: 45_000, payment_method: 'cash' });
  await biz.post(`/v1/transactions/${fourth.id}/mark-paid`, {});
  await claimPayment(h, second.pay_page_url, 'UTR 4242');
  expect((await biz.post(`/v1/transactions/${second.id}/remind`, {})).status).toBe(200);
  await sendWhatsAppMessage(
    h,
    appSecret,
    second.contact_phone,
    language === 'hi' ? 'कल तक पक्का दे दूँगा' : 'Will pay tomorrow',
  );
  await biz.post('/v1/webhooks', { url: 'https://hooks.example.com/khata', events: ['contact.created'] });
  const contact = await biz.get(`/v1/contacts/${first.contact_id}`);
  // The buyer's "I have paid" for the whole account, waiting on Home and the buyer's page.
  const accountClaim = await h.app.inject({
    method: 'POST',
    url: `${new URL(contact.body.data.account_url).pathname}/claim`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ amount: '5000', reference: 'UTR 5151' }).toString(),
  });
  expect(accountClaim.statusCode, accountClaim.body).toBe(303);
  // Every buyer's account reference: the account page and the ledger show them.
  const contacts = (await biz.get('/v1/contacts?limit=100')).body.data as { payment_reference: string | null }[];
  return {
    biz,
    client: await signInByLink(h, biz.business.id),
    dueId: third.id,
    payPath: new URL(second.pay_page_url).pathname,
    accountPath: new URL(contact.body.data.account_url ?? 'http://x/a/none').pathname,
    data: [
      names.business,
      'sharma.sons@okicici',
      ...dues.map((d) => d.payment_reference as string),
      ...contacts.flatMap((c) => (c.payment_reference === null ? [] : [c.payment_reference])),
    ],
  };
}
