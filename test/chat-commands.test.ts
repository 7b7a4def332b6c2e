import { randomBytes } from 'node:crypto';
import { InsertQueryNode, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChatCommandService } from '../src/chat-commands/service.js';
import { ChatInboundService } from '../src/reminders/inbound.js';
import { TransactionService } from '../src/transactions/service.js';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { leftoverEnglish } from './helpers/page-words.js';
import { whatsappMessagePayload, whatsappSignature } from './helpers/whatsapp-inbound.js';

/**
 * PRODUCT part 15: the owner's chat commands, end to end. Meta's signed webhook goes in over HTTP;
 * the replies (and reminders) come out to a fake Cloud API server over HTTP; the effects are read
 * back through the API.
 */

const APP_SECRET = 'chat-app-secret-0123456789';
const PATH = '/channels/whatsapp/webhook';
const NOW = '2026-07-01T06:30:00.000Z'; // 12:00 in Kolkata, inside reminder hours

let graph: FakeGraphApi;
let h: Harness;

beforeAll(async () => {
  graph = new FakeGraphApi();
  const base = `${await graph.start()}/v21.0`;
  h = await startHarness({
    now: NOW,
    env: {
      WHATSAPP_APP_SECRET: APP_SECRET,
      CHAT_CHANNEL: 'whatsapp',
      WHATSAPP_API_BASE: base,
      WHATSAPP_PHONE_NUMBER_ID: '109876543210',
      WHATSAPP_TOKEN: 'EAAG-chat-test',
    },
  });
});
afterAll(async () => {
  await h.close();
  await graph.close();
});
beforeEach(() => {
  h.clock.set(NOW);
  graph.mode = 'ok';
});

/** Phone digits with the country code that no other test uses. */
function phoneDigits(): string {
  return `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
}

function newMessageId(): string {
  return `wamid.${randomBytes(10).toString('hex')}`;
}

/** Posts one signed message; returns what the fake Cloud API received meanwhile. */
async function send(from: string, text: string, id = newMessageId()) {
  const before = graph.requests.length;
  const raw = JSON.stringify(whatsappMessagePayload(from, text, { id, name: 'Owner' }));
  const signature = whatsappSignature(raw, APP_SECRET);
  const res = await h.request('POST', PATH, {
    payload: raw,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
  });
  expect(res.status, res.text).toBe(200);
  const sent = graph.requests.slice(before).map((r) => r.body);
  const replies = sent.filter((b) => b.type === 'text' && b.to === from).map((b) => b.text.body as string);
  return { id, sent, replies };
}

/** Sends a command and returns its one reply (failing clearly when there is not exactly one). */
async function command(from: string, text: string): Promise<string> {
  const { replies } = await send(from, text);
  expect(replies, `replies to "${text}"`).toHaveLength(1);
  return replies[0] as string;
}

interface Shop {
  biz: TestBusiness;
  phone: string;
}

async function newShop(): Promise<Shop> {
  const phone = phoneDigits();
  const biz = await h.newBusiness({ phone: `+${phone}` });
  return { biz, phone };
}

async function dues(shop: Shop, query = '') {
  const res = await shop.biz.get(`/v1/transactions?limit=100${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as any[];
}

async function summary(shop: Shop) {
  const res = await shop.biz.get('/v1/summary');
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function newDue(shop: Shop, body: Record<string, unknown>) {
  const res = await shop.biz.post('/v1/transactions', { due_date: '2026-07-20', ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function eventTypes(businessId: string) {
  const rows = await h.store.db
    .selectFrom('events')
    .select(['type'])
    .where('business_id', '=', businessId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.type);
}

describe('add', () => {
  it('is audited as done over chat by the user whose phone sent it', async () => {
    const shop = await newShop();
    await command(shop.phone, 'add Audit Kumar 250');
    const [due] = await dues(shop);
    const log = await shop.biz.get(`/v1/audit-log?entity=transaction&entity_id=${due.id}`);
    expect(log.status, log.text).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({
      action: 'transaction.created',
      actor: { type: 'chat', id: shop.biz.business.id, name: shop.biz.business.name },
      changes: { amount_paise: [null, 25_000] },
    });
  });

  it('creates the due as the API does and replies with amount, date and pay link', async () => {
    const shop = await newShop();
    const reply = await command(shop.phone, 'add Ravi Kumar 1,500 15/12 cement');
    const [due] = await dues(shop);
    expect(due).toMatchObject({
      contact_name: 'Ravi Kumar',
      amount_paise: 150_000,
      due_date: '2026-12-15T00:00:00.000Z',
      notes: 'cement',
      status: 'pending',
    });
    expect(reply).toContain('₹1,500.00');
    expect(reply).toContain('15 Dec 2026');
    expect(reply).toContain(due.pay_page_url);
    expect(reply).toContain('Ravi Kumar');
    expect((await summary(shop)).total_outstanding_paise).toBe(150_000);
    expect(await eventTypes(shop.biz.business.id)).toEqual(['contact.created', 'transaction.created']);
  });

  it('defaults the date to today and adds to an existing contact found by name, case aside', async () => {
    const shop = await newShop();
    await newDue(shop, { contact_name: 'Meena Stores', amount_paise: 10_000 });
    const reply = await command(shop.phone, 'ADD meena stores 15k');
    const list = await dues(shop);
    expect(list).toHaveLength(2);
    expect(new Set(list.map((d) => d.contact_id)).size).toBe(1);
    expect(list.find((d) => d.amount_paise === 1_500_000)).toMatchObject({ due_date: '2026-07-01T00:00:00.000Z' });
    expect(reply).toContain('₹15,000.00');
    expect(reply).toContain('1 Jul 2026');
    expect((await summary(shop)).total_outstanding_paise).toBe(1_510_000);
  });

  it('acts once on a redelivered message id: one due, one reply', async () => {
    const shop = await newShop();
    const first = await send(shop.phone, 'add Gopal 700 kal');
    const again = await send(shop.phone, 'add Gopal 700 kal', first.id);
    expect(first.replies).toHaveLength(1);
    expect(again.sent).toHaveLength(0);
    const list = await dues(shop);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ amount_paise: 70_000, due_date: '2026-07-02T00:00:00.000Z' });
  });

  it.each([
    ['add Ravi 0', '"0" is not an amount'],
    ['add Ravi -500', '"-500" is not an amount'],
    ['add Ravi 1.555', '"1.555" is not an amount'],
    ['add Ravi 99999999999999', 'is not an amount'],
    ['add Ravi', 'needs an amount'],
    ['add Ravi 500 31/02', 'is not a date'],
    ['add R 500', 'contact_name must be 2-120 characters'],
  ])('%s changes nothing and says what was wrong', async (text, problem) => {
    const shop = await newShop();
    const reply = await command(shop.phone, text);
    expect(reply).toContain(problem);
    expect(await dues(shop)).toEqual([]);
    expect((await summary(shop)).total_outstanding_paise).toBe(0);
  });

  it('asks back when the name resembles existing contacts, and creates the quoted new name', async () => {
    const shop = await newShop();
    await newDue(shop, { contact_name: 'Ravi Kumar', amount_paise: 10_000 });
    await newDue(shop, { contact_name: 'Ravi Shah', amount_paise: 20_000 });
    const reply = await command(shop.phone, 'add Ravi 500');
    expect(reply).toContain('Ravi Kumar');
    expect(reply).toContain('Ravi Shah');
    expect(reply).toContain('Nothing was changed');
    expect(await dues(shop)).toHaveLength(2);

    await command(shop.phone, 'add "Ravi" 500');
    const names = (await dues(shop)).map((d) => d.contact_name).sort();
    expect(names).toEqual(['Ravi', 'Ravi Kumar', 'Ravi Shah']);
  });
});

describe('paid', () => {
  it('without an amount pays every open due of the contact, oldest first', async () => {
    const shop = await newShop();
    await newDue(shop, { contact_name: 'Asha Traders', amount_paise: 100_000, due_date: '2026-06-10' });
    await newDue(shop, { contact_name: 'Asha Traders', amount_paise: 50_000, due_date: '2026-07-10' });
    const other = await newDue(shop, { contact_name: 'Bala', amount_paise: 30_000 });
    const reply = await command(shop.phone, 'paid asha traders');
    const list = await dues(shop);
    expect(list.filter((d) => d.contact_name === 'Asha Traders').map((d) => d.status)).toEqual(['paid', 'paid']);
    expect(list.find((d) => d.id === other.id)?.status).toBe('pending');
    const s = await summary(shop);
    expect(s.total_outstanding_paise).toBe(30_000);
    expect(s.paid).toEqual({ count: 2, paise: 150_000 });
    expect(reply).toContain('Recorded ₹1,500.00 from Asha Traders');
    expect(reply).toContain('still owes ₹0.00');
    expect((await eventTypes(shop.biz.business.id)).filter((t) => t === 'transaction.paid')).toHaveLength(2);
  });

  it('with an amount pays the oldest dues in turn, the remainder as a part payment of the next', async () => {
    const shop = await newShop();
    const older = await newDue(shop, { contact_name: 'Chetan', amount_paise: 100_000, due_date: '2026-06-01' });
    const newer = await newDue(shop, { contact_name: 'Chetan', amount_paise: 200_000, due_date: '2026-07-15' });

    const reply = await command(shop.phone, 'paid Chetan ₹1,500 cash');
    const byId = new Map((await dues(shop)).map((d) => [d.id, d]));
    expect(byId.get(older.id)).toMatchObject({ status: 'paid', payment_method: 'cash' });
    expect(byId.get(newer.id)).toMatchObject({ status: 'pending', amount_paid_paise: 50_000, balance_paise: 150_000 });
    expect(reply).toContain('Recorded ₹1,500.00 from Chetan');
    expect(reply).toContain('(now paid)');
    expect(reply).toContain('(₹1,500.00 left on it)');
    expect(reply).toContain('still owes ₹1,500.00');
    expect((await summary(shop)).total_outstanding_paise).toBe(150_000);
    const payments = (await shop.biz.get(`/v1/transactions/${newer.id}/payments`)).body.data;
    expect(payments).toEqual([
      expect.objectContaining({ amount_paise: 50_000, source: 'chat', payment_method: 'cash' }),
    ]);

    const partOnly = await command(shop.phone, 'paid Chetan 500');
    expect(partOnly).toContain('still owes ₹1,000.00');
    expect((await summary(shop)).total_outstanding_paise).toBe(100_000);
  });

  it('is audited as done over chat by the user whose phone sent it: the receipt and each due it paid', async () => {
    const shop = await newShop();
    const due = await newDue(shop, { contact_name: 'Audit Payer', amount_paise: 100_000 });
    await command(shop.phone, 'paid Audit Payer 400');
    const log = await shop.biz.get('/v1/audit-log?limit=2');
    expect(log.status, log.text).toBe(200);
    const actor = { type: 'chat', id: shop.biz.business.id, name: shop.biz.business.name };
    expect(log.body.data).toMatchObject([
      { action: 'transaction.part_paid', entity_id: due.id, actor, changes: { amount_paid_paise: [0, 40_000] } },
      { action: 'receipt.recorded', actor, changes: { source: [null, 'chat'], amount_paise: [null, 40_000] } },
    ]);
  });

  it('records one receipt of the contact (source chat) allocated oldest first', async () => {
    const shop = await newShop();
    const older = await newDue(shop, { contact_name: 'Receipt Buyer', amount_paise: 100_000, due_date: '2026-06-01' });
    const newer = await newDue(shop, { contact_name: 'Receipt Buyer', amount_paise: 200_000, due_date: '2026-07-15' });
    await command(shop.phone, 'paid Receipt Buyer 1500 upi');
    const receipts = (await shop.biz.get(`/v1/contacts/${older.contact_id}/payments`)).body;
    expect(receipts.total).toBe(1);
    expect(receipts.data[0]).toMatchObject({
      amount_paise: 150_000,
      source: 'chat',
      payment_method: 'upi',
      allocations: [
        { transaction_id: older.id, amount_paise: 100_000 },
        { transaction_id: newer.id, amount_paise: 50_000 },
      ],
    });
  });

  it('refuses more than the contact owes, a contact that owes nothing and bad amounts, changing nothing', async () => {
    const shop = await newShop();
    await newDue(shop, { contact_name: 'Deepa', amount_paise: 100_000 });
    await newDue(shop, { contact_name: 'Esha', amount_paise: 100_000 });
    await command(shop.phone, 'paid Esha');
    expect(await command(shop.phone, 'paid Deepa 5000')).toContain('is more than Deepa owes (₹1,000.00)');
    expect(await command(shop.phone, 'paid Deepa 0')).toContain('"0" is not an amount');
    expect(await command(shop.phone, 'paid Deepa 12.345')).toContain('"12.345" is not an amount');
    expect(await command(shop.phone, 'paid Esha')).toContain('Esha owes nothing');
    expect((await summary(shop)).total_outstanding_paise).toBe(100_000);
  });

  it('asks back on an ambiguous name and answers an unknown one, paying nothing', async () => {
    const shop = await newShop();
    await newDue(shop, { contact_name: 'Ravi Kumar', amount_paise: 10_000 });
    await newDue(shop, { contact_name: 'Ravi Shah', amount_paise: 20_000 });
    const ambiguous = await command(shop.phone, 'paid Ravi');
    expect(ambiguous).toContain('"Ravi" could mean');
    expect(ambiguous).toContain('Ravi Kumar');
    expect(ambiguous).toContain('Ravi Shah');
    expect(await command(shop.phone, 'paid Nobody Here')).toContain('No contact is named "Nobody Here"');
    expect((await dues(shop, '&status=paid')).length).toBe(0);

    // one similar name is not ambiguous: a typo still finds the one contact
    expect(await command(shop.phone, 'paid Ravi Kumaar')).toContain('Recorded ₹100.00 from Ravi Kumar');
  });

  it("never touches another business's contacts", async () => {
    const shopA = await newShop();
    const shopB = await newShop();
    const due = await newDue(shopA, { contact_name: 'Farida', amount_paise: 10_000 });
    expect(await command(shopB.phone, 'paid Farida')).toContain('No contact is named "Farida"');
    expect((await shopA.biz.get(`/v1/transactions/${due.id}`)).body.data.status).toBe('pending');
  });
});

describe('dues and overdue', () => {
  it('reply the outstanding total and the five largest open balances', async () => {
    const shop = await newShop();
    const amounts: [string, number, string][] = [
      ['Anil', 10_000, '2026-06-01'],
      ['Bina', 70_000, '2026-07-10'],
      ['Chand', 30_000, '2026-06-15'],
      ['Dev', 50_000, '2026-07-20'],
      ['Ela', 20_000, '2026-06-20'],
      ['Farhan', 60_000, '2026-07-25'],
      ['Chand', 15_000, '2026-08-01'],
    ];
    for (const [name, paise, date] of amounts)
      await newDue(shop, { contact_name: name, amount_paise: paise, due_date: date });
    await newDue(shop, { contact_name: 'Paid Off', amount_paise: 900_000 });
    await command(shop.phone, 'paid Paid Off');

    const all = await command(shop.phone, 'Dues?');
    expect(all).toContain('Outstanding: ₹2,550.00 in 7 dues');
    const listed = all.split('\n').filter((l) => /^\d\. /.test(l));
    expect(listed).toEqual([
      '1. Bina: ₹700.00',
      '2. Farhan: ₹600.00',
      '3. Dev: ₹500.00',
      '4. Chand: ₹450.00',
      '5. Ela: ₹200.00',
    ]);

    const late = await command(shop.phone, 'overdue');
    expect(late).toContain('Overdue: ₹600.00 in 3 dues');
    expect(late.split('\n').filter((l) => /^\d\. /.test(l))).toEqual([
      '1. Chand: ₹300.00',
      '2. Ela: ₹200.00',
      '3. Anil: ₹100.00',
    ]);
  });

  it('say so when nothing is outstanding', async () => {
    const shop = await newShop();
    expect(await command(shop.phone, 'dues')).toContain('Outstanding: nothing');
    expect(await command(shop.phone, 'overdue')).toContain('Overdue: nothing');
  });
});

describe('statement', () => {
  it("replies with the contact's balance, or credit, and the account link", async () => {
    const shop = await newShop();
    const due = await newDue(shop, { contact_name: 'Statement Buyer', amount_paise: 250_000 });
    const contact = (await shop.biz.get(`/v1/contacts/${due.contact_id}`)).body.data;
    const reply = await command(shop.phone, 'statement statement buyer');
    expect(reply).toContain('Statement Buyer owes ₹2,500.00.');
    expect(reply).toContain(`Account: ${contact.account_url}`);
    await shop.biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 300_000 });
    expect(await command(shop.phone, 'khata Statement Buyer')).toContain('has ₹500.00 in credit');
    expect(await command(shop.phone, 'statement Nobody Here')).toContain('No contact is named');
    expect(await command(shop.phone, 'statement')).toContain('statement needs a name');
  });
});

describe('remind', () => {
  it("reminds the contact's oldest open due with the usual protections", async () => {
    const shop = await newShop();
    const buyer = phoneDigits();
    const older = await newDue(shop, {
      contact_name: 'Gita',
      contact_phone: `+${buyer}`,
      amount_paise: 25_000,
      due_date: '2026-06-25',
    });
    await newDue(shop, { contact_name: 'Gita', amount_paise: 99_000, due_date: '2026-07-25' });

    const { sent, replies } = await send(shop.phone, 'remind gita');
    const template = sent.find((b) => b.type === 'template');
    expect(template?.to).toBe(buyer);
    expect(template?.template.components[0].parameters.map((p: { text: string }) => p.text)).toContain('₹250.00');
    expect(replies).toEqual([expect.stringContaining('Reminder sent to Gita for ₹250.00 due 25 Jun 2026')]);
    expect((await shop.biz.get(`/v1/transactions/${older.id}`)).body.data.reminder_count).toBe(1);

    const again = await send(shop.phone, 'remind Gita');
    expect(again.sent.filter((b) => b.type === 'template')).toHaveLength(0);
    expect(again.replies).toEqual([expect.stringContaining('last 24 hours')]);
    expect((await shop.biz.get(`/v1/transactions/${older.id}`)).body.data.reminder_count).toBe(1);
  });

  it('answers a contact without a phone, one that owes nothing and an unknown name', async () => {
    const shop = await newShop();
    await newDue(shop, { contact_name: 'Hari', amount_paise: 25_000 });
    await newDue(shop, { contact_name: 'Indu', amount_paise: 25_000 });
    await command(shop.phone, 'paid Indu');
    expect(await command(shop.phone, 'Hari ko yaad dilao')).toContain('they have no phone number');
    expect(await command(shop.phone, 'remind Indu')).toContain('Indu owes nothing');
    expect(await command(shop.phone, 'remind Zubin')).toContain('No contact is named "Zubin"');
  });
});

describe('API KEY (PRODUCT part 16)', () => {
  it('issues a working key, announced in the reply to the business phone, listed with source chat', async () => {
    const shop = await newShop();
    const reply = await command(shop.phone, 'API KEY');
    const key = /rk_live_[A-Za-z0-9_-]{32,}/.exec(reply)?.[0];
    expect(key, reply).toBeDefined();
    const me = await h.request('GET', '/v1/me', { headers: { 'x-api-key': key as string } });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(shop.biz.business.id);
    const keys = await h.services.businesses.listKeys(shop.biz.business.id);
    expect(keys.map((k) => k.source)).toEqual(['cli', 'chat']);
    expect(keys[1]?.prefix).toBe((key as string).slice(0, 12));
  });

  it('keeps at most 5 active keys: the 6th revokes the oldest chat key and says so', async () => {
    const shop = await newShop();
    const issued: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await command(shop.phone, i % 2 === 0 ? 'API KEY' : 'api key');
      issued.push(/rk_live_[A-Za-z0-9_-]{32,}/.exec(reply)?.[0] as string);
      if (i < 4) expect(reply).not.toMatch(/was revoked/);
      else
        expect(reply).toMatch(new RegExp(`oldest key issued over chat \\(${issued[0]?.slice(0, 12)}…\\) was revoked`));
    }
    const keys = await h.services.businesses.listKeys(shop.biz.business.id);
    expect(keys.filter((k) => k.revoked_at === null)).toHaveLength(5);
    const firstChat = await h.request('GET', '/v1/me', { headers: { 'x-api-key': issued[0] as string } });
    expect(firstChat.status).toBe(401);
    const lastChat = await h.request('GET', '/v1/me', { headers: { 'x-api-key': issued[4] as string } });
    expect(lastChat.status).toBe(200);
  });

  it('issues none when every active key came from elsewhere', async () => {
    const shop = await newShop();
    for (let i = 0; i < 4; i++) await h.services.businesses.issueKey(shop.biz.business.id);
    const reply = await command(shop.phone, 'API KEY');
    expect(reply).toMatch(/already has 5 active API keys, none of them issued over chat, so no key was issued/);
    expect(reply).not.toMatch(/rk_live_/);
    expect(await h.services.businesses.listKeys(shop.biz.business.id)).toHaveLength(5);
  });
});

describe('who may command', () => {
  it("treats a buyer's or a stranger's message as no command: nothing changes, no reply", async () => {
    const shop = await newShop();
    const buyer = phoneDigits();
    await newDue(shop, { contact_name: 'Jaya', contact_phone: `+${buyer}`, amount_paise: 40_000 });
    for (const from of [buyer, phoneDigits()]) {
      for (const text of ['add Jaya 5000', 'paid Jaya', 'dues', 'help']) {
        const { sent } = await send(from, text);
        expect(sent, `${from}: ${text}`).toEqual([]);
      }
    }
    const [due] = await dues(shop);
    expect(due).toMatchObject({ status: 'pending', amount_paise: 40_000 });
    expect(await dues(shop)).toHaveLength(1);
  });

  it('keeps STOP meaning an opt-out, even from the owner', async () => {
    const shop = await newShop();
    const { sent } = await send(shop.phone, 'STOP');
    expect(sent).toEqual([]);
    const row = await h.store.db
      .selectFrom('chat_opt_outs')
      .select('phone')
      .where('phone', '=', shop.phone)
      .executeTakeFirst();
    expect(row?.phone).toBe(shop.phone);
  });

  it('answers a Hindi business in Hindi: every reply, with its amounts and dates', async () => {
    const phone = phoneDigits();
    const biz = await h.newBusiness({ phone: `+${phone}`, language: 'hi' });
    const shop = { biz, phone };
    await newDue(shop, { contact_name: 'Ravi Kumar', amount_paise: 100_000 });
    await newDue(shop, { contact_name: 'Ravi Shah', amount_paise: 50_000 });
    // What may stay in Latin letters: the buyers' names, the owner's own note and the command words.
    const data = ['Ravi Kumar', 'Ravi Shah', 'Sunil Traders', 'Ravi', 'Nobody', 'add', 'paid', 'dues', 'overdue'];
    const syntax = [...data, 'cement', 'remind', 'statement', 'today', 'kal', 'Dec', 'k'];
    const replies: Record<string, string> = {};
    for (const text of [
      'help',
      'add Sunil Traders 2,000 15/12 cement',
      'paid Ravi Kumar 400',
      'paid Ravi',
      'paid Nobody 100',
      'paid Ravi Kumar 99999',
      'add Ravi 12.345',
      'dues',
      'overdue',
      'statement Ravi Shah',
      'remind Ravi Shah',
    ]) {
      replies[text] = await command(phone, text);
      expect(leftoverEnglish(replies[text] as string, syntax), `${text}: ${replies[text]}`).toEqual([]);
    }
    expect(replies.help).toContain('उधार लिखें');
    expect(replies['add Sunil Traders 2,000 15/12 cement']).toContain(
      'नया ग्राहक Sunil Traders जोड़ा और ₹2,000.00 उधार लिखा',
    );
    expect(replies['add Sunil Traders 2,000 15/12 cement']).toContain('दिस॰');
    expect(replies['paid Ravi Kumar 400']).toContain('Ravi Kumar से ₹400.00 जमा लिखा');
    expect(replies['paid Ravi Kumar 400']).toContain('Ravi Kumar का बकाया अब ₹600.00 है।');
    expect(replies['paid Ravi']).toContain('"Ravi" से इनमें से कौन?');
    expect(replies['paid Nobody 100']).toContain('कुछ नहीं बदला');
    expect(replies['add Ravi 12.345']).toContain('रकम नहीं लगती');
    expect(replies.dues).toContain('कुल बकाया: 3 उधार में ₹3,100.00।');
    expect(replies['statement Ravi Shah']).toContain('Ravi Shah का बकाया ₹500.00 है।');
    expect(replies['remind Ravi Shah']).toContain('ग्राहक का फ़ोन नंबर नहीं है');
    // The English business still reads English.
    expect(await command((await newShop()).phone, 'dues')).toContain('Outstanding: nothing');
  });

  it('answers help and anything not understood with the list of commands', async () => {
    const shop = await newShop();
    for (const text of ['help', 'what do I do now']) {
      const reply = await command(shop.phone, text);
      for (const word of ['add <name> <amount>', 'paid <name>', 'dues', 'overdue', 'remind <name>']) {
        expect(reply).toContain(word);
      }
    }
    expect(await dues(shop)).toEqual([]);
  });

  it('changes nothing for a phone that several businesses registered, and says why', async () => {
    const phone = phoneDigits();
    const a = await h.newBusiness({ phone: `+${phone}`, name: 'Alpha Hardware' });
    await h.newBusiness({ phone: `+${phone}`, name: 'Beta Hardware' });
    const reply = await command(phone, 'add Kiran 500');
    expect(reply).toContain('2 businesses');
    expect((await a.get('/v1/transactions')).body.data).toEqual([]);
  });

  it('answers 401 to an unsigned command and changes nothing', async () => {
    const shop = await newShop();
    const raw = JSON.stringify(
      whatsappMessagePayload(shop.phone, 'add Lata 500', { id: newMessageId(), name: 'Owner' }),
    );
    const res = await h.request('POST', PATH, {
      payload: raw,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' },
    });
    expect(res.status).toBe(401);
    expect(await dues(shop)).toEqual([]);
  });
});

/** A plugin that makes every insert into `table` fail, as a crash or a lost database would. */
function failingInsertsInto(table: string): KyselyPlugin {
  return {
    transformQuery(args) {
      const node = args.node;
      if (InsertQueryNode.is(node) && node.into?.table.identifier.name === table) {
        throw new Error(`injected failure writing ${table}`);
      }
      return node;
    },
    transformResult: async (args) => args.result,
  };
}

/** The inbound service of the app, but over a database on which inserts into `table` fail. */
function inboundFailingOn(
  table: string,
  makeTransactions = (deps: ConstructorParameters<typeof TransactionService>[0]) => new TransactionService(deps),
): ChatInboundService {
  const db = h.store.db.withPlugin(failingInsertsInto(table));
  const { clock } = h;
  const { channel, businesses, contacts, reminders, summary, idempotency } = h.services;
  const transactions = makeTransactions({ db, clock, contacts, idempotency });
  const commands = new ChatCommandService({
    db,
    clock,
    idempotency,
    transactions,
    reminders,
    summary,
    publicBaseUrl: h.config.publicBaseUrl,
  });
  return new ChatInboundService({ db, clock, channel, businesses, commands, prices: h.config.whatsapp.prices });
}

describe('a message whose effect fails is not marked seen', () => {
  it('STOP: the retry of a failed opt-out opts out (one transaction, issue 17)', async () => {
    const phone = phoneDigits();
    const message = { id: newMessageId(), from: phone, text: 'STOP' };
    await expect(inboundFailingOn('chat_opt_outs').handle({ messages: [message], statuses: [] })).rejects.toThrow(
      /injected failure/,
    );
    const seen = await h.store.db
      .selectFrom('chat_inbound_messages')
      .select('id')
      .where('id', '=', message.id)
      .executeTakeFirst();
    expect(seen).toBeUndefined();

    await send(phone, 'STOP', message.id);
    const row = await h.store.db
      .selectFrom('chat_opt_outs')
      .select('phone')
      .where('phone', '=', phone)
      .executeTakeFirst();
    expect(row?.phone).toBe(phone);
  });

  it('add: the retry of a command that failed adds the due once and replies once', async () => {
    const shop = await newShop();
    const message = { id: newMessageId(), from: shop.phone, text: 'add Mohan 800' };
    const before = graph.requests.length;
    await expect(inboundFailingOn('contacts').handle({ messages: [message], statuses: [] })).rejects.toThrow(
      /injected failure/,
    );
    expect(graph.requests.length).toBe(before);
    expect(await dues(shop)).toEqual([]);

    const retry = await send(shop.phone, message.text, message.id);
    expect(retry.replies).toEqual([expect.stringContaining('Added ₹800.00 for Mohan')]);
    expect(await dues(shop)).toHaveLength(1);
    expect((await send(shop.phone, message.text, message.id)).sent).toEqual([]);
    expect(await dues(shop)).toHaveLength(1);
  });
});

describe('a payment that fails part-way', () => {
  it('records none of it, replies nothing, and the redelivery records all of it once', async () => {
    const shop = await newShop();
    const older = await newDue(shop, { contact_name: 'Nanda', amount_paise: 100_000, due_date: '2026-06-01' });
    const newer = await newDue(shop, { contact_name: 'Nanda', amount_paise: 200_000, due_date: '2026-07-15' });
    const message = { id: newMessageId(), from: shop.phone, text: 'paid Nanda 3000' };
    const before = graph.requests.length;
    // The receipt and both dues' payments are written, then the transaction fails (as a lost
    // database would) before it commits.
    class FailingOnNewer extends TransactionService {
      override async recordReceiptIn(...args: Parameters<TransactionService['recordReceiptIn']>) {
        const recorded = await super.recordReceiptIn(...args);
        if (recorded.transactions.some((t) => t.id === newer.id)) {
          throw new Error('injected failure recording a payment');
        }
        return recorded;
      }
    }
    const inbound = inboundFailingOn('nothing', (deps) => new FailingOnNewer(deps));
    await expect(inbound.handle({ messages: [message], statuses: [] })).rejects.toThrow(/injected failure/);
    expect(graph.requests.length).toBe(before);
    expect((await shop.biz.get(`/v1/transactions/${older.id}/payments`)).body.data).toEqual([]);
    expect((await summary(shop)).total_outstanding_paise).toBe(300_000);

    const retry = await send(shop.phone, message.text, message.id);
    expect(retry.replies).toEqual([expect.stringContaining('Recorded ₹3,000.00 from Nanda')]);
    expect((await shop.biz.get(`/v1/transactions/${older.id}`)).body.data.status).toBe('paid');
    expect((await shop.biz.get(`/v1/transactions/${newer.id}`)).body.data.status).toBe('paid');
    expect((await send(shop.phone, message.text, message.id)).sent).toEqual([]);
    expect((await summary(shop)).total_outstanding_paise).toBe(0);
  });
});

describe('a crash after the command committed, before the message was marked seen', () => {
  it('two deliveries of one message at once: one due, one reply', async () => {
    const shop = await newShop();
    const id = newMessageId();
    const before = graph.requests.length;
    await Promise.all([send(shop.phone, 'add Qadir 300', id), send(shop.phone, 'add Qadir 300', id)]);
    const replies = graph.requests.slice(before).map((r) => r.body.text.body as string);
    expect(replies).toEqual([expect.stringContaining('Added ₹300.00 for Qadir')]);
    expect(await dues(shop)).toHaveLength(1);
  });

  it('add: the redelivery replays the reply and adds nothing more', async () => {
    const shop = await newShop();
    const message = { id: newMessageId(), from: shop.phone, text: 'add Ojas 450' };
    const before = graph.requests.length;
    // The seen-mark fails after the due was committed: the process "stops" there.
    await expect(
      inboundFailingOn('chat_inbound_messages').handle({ messages: [message], statuses: [] }),
    ).rejects.toThrow(/injected failure/);
    expect(graph.requests.length).toBe(before);
    expect(await dues(shop)).toHaveLength(1);

    const retry = await send(shop.phone, message.text, message.id);
    expect(retry.replies).toEqual([expect.stringContaining('Added ₹450.00 for Ojas')]);
    expect(await dues(shop)).toHaveLength(1);
    expect((await send(shop.phone, message.text, message.id)).sent).toEqual([]);
  });

  it('paid: the redelivery replays the reply and records nothing more', async () => {
    const shop = await newShop();
    const due = await newDue(shop, { contact_name: 'Pallavi', amount_paise: 100_000, due_date: '2026-06-01' });
    const message = { id: newMessageId(), from: shop.phone, text: 'paid Pallavi 400' };
    await expect(
      inboundFailingOn('chat_inbound_messages').handle({ messages: [message], statuses: [] }),
    ).rejects.toThrow(/injected failure/);
    expect((await shop.biz.get(`/v1/transactions/${due.id}/payments`)).body.data).toHaveLength(1);

    const retry = await send(shop.phone, message.text, message.id);
    expect(retry.replies).toEqual([expect.stringContaining('Recorded ₹400.00 from Pallavi')]);
    expect((await shop.biz.get(`/v1/transactions/${due.id}/payments`)).body.data).toHaveLength(1);
    expect((await summary(shop)).total_outstanding_paise).toBe(60_000);
  });
});
