import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventsOf, newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * Account claims: "I have paid" with an amount on the buyer's account page, listed, confirmed (a
 * receipt allocated oldest first) or rejected by the business, and confirmed by a bank credit
 * that names them (bank matching rule 1).
 */

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
  dues: string[];
}

/** A buyer with one open due per amount, due a day apart (the first oldest). */
async function account(biz: TestBusiness, amounts = [6000, 4000], name = 'Account Buyer'): Promise<Account> {
  const dues: string[] = [];
  let contactId = '';
  for (const [i, amount] of amounts.entries()) {
    const due = await newDue(biz, { contact_name: name, amount_paise: amount, due_date: `2026-12-0${i + 1}` });
    dues.push(due.id);
    contactId = due.contact_id;
  }
  const contact = await biz.get(`/v1/contacts/${contactId}`);
  return { contactId, path: new URL(contact.body.data.account_url).pathname, dues };
}

async function claim(acc: Account, fields: Record<string, string>) {
  const res = await h.request('POST', `${acc.path}/claim`, {
    payload: new URLSearchParams(fields).toString(),
    headers: FORM,
  });
  expect(res.status, res.text).toBe(303);
}

async function claimsOf(biz: TestBusiness, acc: Account) {
  const res = await biz.get(`/v1/contacts/${acc.contactId}/claims`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: string; amount_paise: number; reference: string | null; status: string }[];
}

async function accountWithClaim(biz: TestBusiness, amount = '75', reference = 'UTR-ACC-1') {
  const acc = await account(biz);
  await claim(acc, { amount, reference });
  const [first] = await claimsOf(biz, acc);
  if (!first) throw new Error('no claim');
  return { acc, claimId: first.id };
}

const laterEvents = async (biz: TestBusiness) =>
  (await eventsOf(h, biz.business.id)).filter((e) => !['transaction.created', 'contact.created'].includes(e.type));

async function balances(biz: TestBusiness, acc: Account) {
  const contact = (await biz.get(`/v1/contacts/${acc.contactId}`)).body.data;
  const dues = await Promise.all(acc.dues.map(async (id) => (await biz.get(`/v1/transactions/${id}`)).body.data));
  return {
    balance: contact.balance_paise,
    credit: contact.credit_paise,
    dues: dues.map((d) => [d.status, d.balance_paise]),
    receipts: (await biz.get(`/v1/contacts/${acc.contactId}/payments`)).body.data.length,
  };
}

describe('GET /v1/contacts/:id/claims', () => {
  it("lists the account's claims oldest first, with the amount entered, and not its dues' claims", async () => {
    const biz = await h.newBusiness();
    const acc = await account(biz);
    expect(await claimsOf(biz, acc)).toEqual([]);
    await claim(acc, { amount: '1,500.50', reference: ' UTR-1 ' });
    h.clock.advance(60_000);
    await claim(acc, { amount: '₹ 20' });
    // A claim on one of the buyer's dues (the pay page) is the due's, not the account's.
    const due = await biz.get(`/v1/transactions/${acc.dues[0]}`);
    const payPage = new URL(due.body.data.pay_page_url).pathname;
    expect((await h.request('POST', `${payPage}/claim`, { payload: 'reference=x', headers: FORM })).status).toBe(303);

    expect(await claimsOf(biz, acc)).toEqual([
      {
        id: expect.any(String),
        contact_id: acc.contactId,
        amount_paise: 150_050,
        reference: 'UTR-1',
        status: 'pending',
        created_at: NOW,
        decided_at: null,
      },
      {
        id: expect.any(String),
        contact_id: acc.contactId,
        amount_paise: 2000,
        reference: null,
        status: 'pending',
        created_at: '2026-11-21T06:31:00.000Z',
        decided_at: null,
      },
    ]);
    expect((await biz.get(`/v1/transactions/${acc.dues[0]}/claims`)).body.data).toHaveLength(1);
  });

  it("answers 404 for another business's contact, an unknown one and a non-uuid id", async () => {
    const biz = await h.newBusiness();
    const { acc } = await accountWithClaim(biz);
    const other = await h.newBusiness();
    expect((await other.get(`/v1/contacts/${acc.contactId}/claims`)).status).toBe(404);
    expect((await biz.get(`/v1/contacts/${randomUUID()}/claims`)).status).toBe(404);
    const bad = await biz.get('/v1/contacts/nope/claims');
    expect(bad.status).toBe(404);
  });
});

describe('POST /v1/contacts/:id/claims/:claimId/confirm', () => {
  it('records the amount entered as a upi receipt with the claim reference, oldest due first', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz, '75');
    const res = await biz.post(`/v1/contacts/${acc.contactId}/claims/${claimId}/confirm`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.claim).toEqual({
      id: claimId,
      contact_id: acc.contactId,
      amount_paise: 7500,
      reference: 'UTR-ACC-1',
      status: 'confirmed',
      created_at: NOW,
      decided_at: NOW,
    });
    expect(res.body.data.receipt).toMatchObject({
      contact_id: acc.contactId,
      amount_paise: 7500,
      applied_paise: 7500,
      credit_paise: 0,
      utr: 'UTR-ACC-1',
      payment_method: 'upi',
      source: 'claim',
      received_on: '2026-11-21',
      allocations: [
        { transaction_id: acc.dues[0], amount_paise: 6000 },
        { transaction_id: acc.dues[1], amount_paise: 1500 },
      ],
    });
    expect(
      res.body.data.transactions.map((t: { status: string; balance_paise: number }) => [t.status, t.balance_paise]),
    ).toEqual([
      ['paid', 0],
      ['pending', 2500],
    ]);
    expect(res.body.data.contact).toMatchObject({ id: acc.contactId, balance_paise: 2500, credit_paise: 0 });
    expect((await laterEvents(biz)).map((e) => [e.type, e.data.transactionId ?? e.data.id])).toEqual([
      ['transaction.paid', acc.dues[0]],
      ['payment.received', acc.dues[0]],
      ['transaction.updated', acc.dues[1]],
      ['payment.received', acc.dues[1]],
    ]);
  });

  it('takes amount_paise instead of the amount entered; what the dues cannot take becomes credit', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz, '10');
    const res = await biz.post(`/v1/contacts/${acc.contactId}/claims/${claimId}/confirm`, { amount_paise: 12_000 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.receipt).toMatchObject({ amount_paise: 12_000, applied_paise: 10_000, credit_paise: 2000 });
    expect(await balances(biz, acc)).toEqual({
      balance: -2000,
      credit: 2000,
      dues: [
        ['paid', 0],
        ['paid', 0],
      ],
      receipts: 1,
    });
  });

  it('answers 409 for a decided claim, and changes nothing', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz, '10');
    const path = `/v1/contacts/${acc.contactId}/claims/${claimId}`;
    expect((await biz.post(`${path}/confirm`)).status).toBe(200);
    const before = await balances(biz, acc);
    const again = await biz.post(`${path}/confirm`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await biz.post(`${path}/reject`)).status).toBe(409);
    expect(await balances(biz, acc)).toEqual(before);

    await claim(acc, { amount: '5' });
    const rejected = (await claimsOf(biz, acc))[1]?.id;
    expect((await biz.post(`/v1/contacts/${acc.contactId}/claims/${rejected}/reject`)).status).toBe(200);
    expect((await biz.post(`/v1/contacts/${acc.contactId}/claims/${rejected}/confirm`)).status).toBe(409);
    expect(await balances(biz, acc)).toEqual(before);
  });

  it('answers 400 naming amount_paise when it is not a positive integer, and for unknown fields', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz);
    const path = `/v1/contacts/${acc.contactId}/claims/${claimId}/confirm`;
    for (const body of [{ amount_paise: 0 }, { amount_paise: -5 }, { amount_paise: 'ten' }, { amount_paise: 1.5 }]) {
      const res = await biz.post(path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field).toBe('amount_paise');
    }
    const extra = await biz.post(path, { colour: 'red' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toContain('colour');
    expect((await claimsOf(biz, acc))[0]?.status).toBe('pending');
    expect(await laterEvents(biz)).toEqual([]);
  });

  it("answers 404 for an unknown claim, another contact's claim, a due's claim and another business's contact", async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz);
    const otherBuyer = await account(biz, [1000], 'Other Buyer');
    const base = `/v1/contacts/${acc.contactId}/claims`;
    expect((await biz.post(`${base}/${randomUUID()}/confirm`)).status).toBe(404);
    expect((await biz.post(`/v1/contacts/${otherBuyer.contactId}/claims/${claimId}/confirm`)).status).toBe(404);
    expect((await biz.post(`${base}/nope/confirm`)).status).toBe(404);
    // A due's claim is decided on its due, not on the contact.
    const due = await biz.get(`/v1/transactions/${acc.dues[0]}`);
    await h.request('POST', `${new URL(due.body.data.pay_page_url).pathname}/claim`, {
      payload: 'reference=due',
      headers: FORM,
    });
    const dueClaim = (await biz.get(`/v1/transactions/${acc.dues[0]}/claims`)).body.data[0].id;
    expect((await biz.post(`${base}/${dueClaim}/confirm`)).status).toBe(404);
    expect((await biz.post(`/v1/transactions/${acc.dues[0]}/claims/${claimId}/confirm`)).status).toBe(404);
    const other = await h.newBusiness();
    const foreign = await other.post(`${base}/${claimId}/confirm`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toContain('contact');
    expect((await other.post(`${base}/${claimId}/reject`)).status).toBe(404);
    expect((await claimsOf(biz, acc))[0]?.status).toBe('pending');
  });

  it('confirms one of three concurrent confirmations of the same claim: one receipt', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz, '10');
    const answers = await Promise.all(
      [1, 2, 3].map(() => biz.post(`/v1/contacts/${acc.contactId}/claims/${claimId}/confirm`)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect((await balances(biz, acc)).receipts).toBe(1);
  });
});

describe('POST /v1/contacts/:id/claims/:claimId/reject', () => {
  it('marks the claim rejected and changes nothing else', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz);
    const before = await balances(biz, acc);
    const res = await biz.post(`/v1/contacts/${acc.contactId}/claims/${claimId}/reject`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      id: claimId,
      contact_id: acc.contactId,
      amount_paise: 7500,
      reference: 'UTR-ACC-1',
      status: 'rejected',
      created_at: NOW,
      decided_at: NOW,
    });
    expect(await balances(biz, acc)).toEqual(before);
    expect(await laterEvents(biz)).toEqual([]);
    const extra = await biz.post(`/v1/contacts/${acc.contactId}/claims/${claimId}/reject`, { note: 'x' });
    expect(extra.status).toBe(400);
  });
});

/** A statement of credits: [narration, rupees, reference?] lines under an SBI-like header. */
function statement(lines: [string, string, string?][]) {
  const rows = lines.map(([text, amount, ref]) => `20/11/2026,"${text}",${ref ?? ''},,"${amount}",`);
  return `Date,Narration,Ref No.,Withdrawal,Deposit,Balance\n${rows.join('\n')}\n`;
}

const upload = (biz: TestBusiness, csv: string) =>
  biz.post('/v1/bank-statements', undefined, { payload: csv, headers: { 'content-type': 'text/csv' } });

describe('bank matching rule 1 for account claims', () => {
  it('confirms a pending account claim named by the credit, within the account balance: a receipt oldest first', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz, '80', '630577770001');
    const res = await upload(biz, statement([['UPI/630577770001/ACCOUNT BUYER', '80.00']]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ matched: 1 });
    const [credit] = (await biz.get('/v1/bank-credits')).body.data;
    expect(credit).toMatchObject({
      status: 'matched',
      matched_by: 'claim',
      transaction_id: null,
      contact_id: acc.contactId,
    });
    expect((await claimsOf(biz, acc))[0]).toMatchObject({ id: claimId, status: 'confirmed', decided_at: NOW });
    const receipt = (await biz.get(`/v1/payments/${credit.receipt_id}`)).body.data;
    expect(receipt).toMatchObject({
      amount_paise: 8000,
      source: 'claim',
      utr: '630577770001',
      payment_method: 'upi',
      received_on: '2026-11-20',
      allocations: [
        { transaction_id: acc.dues[0], amount_paise: 6000 },
        { transaction_id: acc.dues[1], amount_paise: 2000 },
      ],
    });
    expect((await balances(biz, acc)).balance).toBe(2000);
  });

  it("leaves the claim pending when the credit is more than the account's balance", async () => {
    const biz = await h.newBusiness();
    const { acc } = await accountWithClaim(biz, '80', '630577770002');
    // 100.01 rupees against an account balance of 100: not this claim's money.
    const res = await upload(biz, statement([['NEFT 630577770002 SOMEONE', '100.01']]));
    expect(res.status, res.text).toBe(201);
    const [credit] = (await biz.get('/v1/bank-credits')).body.data;
    expect(credit.matched_by).not.toBe('claim');
    expect((await claimsOf(biz, acc))[0]?.status).toBe('pending');
    expect((await balances(biz, acc)).balance).toBe(10_000);
  });

  it('a bank match and a manual confirmation of one claim at once record one receipt', async () => {
    const biz = await h.newBusiness();
    const { acc, claimId } = await accountWithClaim(biz, '80', '630577770003');
    const [bank, manual] = await Promise.all([
      upload(biz, statement([['UPI/630577770003/ACCOUNT BUYER', '80.00']])),
      biz.post(`/v1/contacts/${acc.contactId}/claims/${claimId}/confirm`),
    ]);
    expect(bank.status, bank.text).toBe(201);
    expect([200, 409]).toContain(manual.status);
    const after = await balances(biz, acc);
    const receipts = (await biz.get(`/v1/contacts/${acc.contactId}/payments`)).body.data;
    const fromClaim = receipts.filter((r: { source: string }) => r.source === 'claim');
    expect(fromClaim).toHaveLength(1);
    // Whoever confirmed it, the credit's money is counted once: as the claim, or (when the manual
    // confirmation won) as a receipt of the credit under another rule.
    const [credit] = (await biz.get('/v1/bank-credits')).body.data;
    if (manual.status === 200) expect(credit.matched_by).not.toBe('claim');
    else expect(credit.matched_by).toBe('claim');
    expect(after.balance).toBe(
      10_000 - receipts.reduce((s: number, r: { amount_paise: number }) => s + r.amount_paise, 0),
    );
  });
});
