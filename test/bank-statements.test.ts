import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyStore } from '../src/ops/verify/index.js';
import { contactOf, eventsOf, newDue } from './helpers/dues.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';

// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(NOW));

const fixture = (name: string) => readFileSync(new URL(`./fixtures/bank/${name}`, import.meta.url), 'utf8');

function upload(biz: TestBusiness, csv: string) {
  return biz.post('/v1/bank-statements', undefined, { payload: csv, headers: { 'content-type': 'text/csv' } });
}

/** A statement of credits: [narration, rupees, reference?] lines under an SBI-like header. */
function statement(lines: [string, string, string?][], date = '20/11/2026') {
  const rows = lines.map(([text, amount, ref]) => `${date},"${text}",${ref ?? ''},,"${amount}",`);
  return `Statement of account\n\nDate,Narration,Ref No.,Withdrawal,Deposit,Balance\n${rows.join('\n')}\n`;
}

async function credits(biz: TestBusiness, query = '') {
  const res = await biz.get(`/v1/bank-credits${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as {
    id: string;
    status: string;
    matched_by: string | null;
    transaction_id: string | null;
    contact_id: string | null;
    receipt_id: string | null;
    suggestions: { transaction_id: string | null; contact_id: string | null; reason: string }[];
    narration: string;
    reference: string | null;
    amount_paise: number;
  }[];
}

async function due(biz: TestBusiness, id: string) {
  const res = await biz.get(`/v1/transactions/${id}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function receipt(biz: TestBusiness, id: string) {
  const res = await biz.get(`/v1/payments/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function differences(biz: TestBusiness) {
  return (await verifyStore(h.store.db, { businessId: biz.business.id, integrity: false })).differences;
}

describe('POST /v1/bank-statements', () => {
  it('reads an HDFC-like export, matches invoice numbers, suggests by name, and skips every line when uploaded again', async () => {
    const biz = await h.newBusiness();
    const ravi = await newDue(biz, { contact_name: 'Ravi Kumar', amount_paise: 1_234_500, invoice_number: 'INV-1001' });
    const mehta = await newDue(biz, {
      contact_name: 'Mehta Stores',
      amount_paise: 20_000_000,
      invoice_number: 'INV-1002',
    });
    await newDue(biz, { contact_name: 'Gupta and Sons', amount_paise: 700_000 });

    const res = await upload(biz, fixture('hdfc.csv'));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toEqual({
      statement_id: expect.any(String),
      lines: 5,
      credits: 4,
      duplicates: 0,
      matched: 2,
      suggested: 1,
      unmatched: 1,
    });
    expect(await due(biz, ravi.id)).toMatchObject({ status: 'paid', balance_paise: 0, utr: '0000630512345678' });
    expect(await due(biz, mehta.id)).toMatchObject({ status: 'pending', balance_paise: 20_000_000 - 15_000_050 });

    const matched = await credits(biz, '?status=matched');
    expect(matched.map((c) => [c.matched_by, c.transaction_id])).toEqual([
      ['invoice_number', mehta.id],
      ['invoice_number', ravi.id],
    ]);
    const paid = await receipt(biz, matched[1]?.receipt_id as string);
    expect(paid).toMatchObject({
      source: 'bank',
      payment_method: 'upi',
      utr: '0000630512345678',
      received_on: '2026-11-01',
      amount_paise: 1_234_500,
    });
    const suggested = await credits(biz, '?status=suggested');
    expect(suggested).toHaveLength(1);
    expect(suggested[0]?.suggestions).toEqual([
      { transaction_id: null, contact_id: expect.any(String), reason: 'name' },
    ]);
    expect((await credits(biz, '?status=unmatched')).map((c) => c.amount_paise)).toEqual([99_900]);
    // Money received and verified: payment.received per due paid, with the due events.
    const received = await eventsOf(h, biz.business.id, 'payment.received');
    expect(received.map((e) => e.data.transactionId).sort()).toEqual([ravi.id, mehta.id].sort());
    expect(await eventsOf(h, biz.business.id, 'transaction.paid')).toHaveLength(1);

    const again = await upload(biz, fixture('hdfc.csv'));
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ lines: 5, credits: 0, duplicates: 4, matched: 0 });
    expect(await credits(biz)).toHaveLength(4);
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(2);
  });

  it.each([
    ['sbi.csv', 'INV-2001', 340_000],
    ['icici.csv', 'INV-3001', 12_345_650],
    ['axis.csv', 'INV-4001', 450_000],
    ['kotak.csv', 'INV-5001', 275_000],
    // ISO dates, a UTR column, Dr/Cr columns, western and Indian grouping in one file.
    ['yes.csv', 'INV-6001', 6_125_075],
  ])('reads %s and pays the due its narration names', async (file, invoice, paise) => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Fixture Buyer', amount_paise: paise, invoice_number: invoice });
    const res = await upload(biz, fixture(file));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ lines: 3, credits: 2, duplicates: 0, matched: 1 });
    expect(await due(biz, d.id)).toMatchObject({ status: 'paid' });
  });

  it("pays a due or an account named by its payment reference; the excess becomes the contact's credit", async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { contact_name: 'Anil', amount_paise: 10_000, due_date: '2026-11-25' });
    const second = await newDue(biz, { contact_name: 'Anil', amount_paise: 2_000, due_date: '2026-11-10' });
    const { payment_reference: dueRef } = await due(biz, first.id);
    const other = await newDue(biz, { contact_name: 'Sunita', amount_paise: 5_000 });
    const sunita = await contactOf(biz, other.contact_id);
    expect(sunita.payment_reference).toMatch(/^R[A-Z0-9]{7}$/);

    const res = await upload(
      biz,
      statement([
        [`UPI-ANIL-anil@okaxis-630512340001-${dueRef} Due 2026-11-25`, '150.00', 'REF1'],
        [`IMPS-630812340002-SUNITA-${sunita.payment_reference}`, '80.00', 'REF2'],
      ]),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ credits: 2, matched: 2 });
    // 150.00 on the due named first (100.00), then the other open due (20.00), 30.00 credit.
    expect(await due(biz, first.id)).toMatchObject({ status: 'paid' });
    expect(await due(biz, second.id)).toMatchObject({ status: 'paid' });
    expect(await contactOf(biz, first.contact_id)).toMatchObject({ credit_paise: 3_000 });
    expect(await contactOf(biz, other.contact_id)).toMatchObject({ credit_paise: 3_000, balance_paise: -3_000 });
    const list = await credits(biz, '?status=matched');
    // Newest first: the later line of the same day first.
    expect(list.map((c) => [c.matched_by, c.transaction_id, c.contact_id])).toEqual([
      ['reference', null, other.contact_id],
      ['reference', first.id, first.contact_id],
    ]);
    const r = await receipt(biz, list[1]?.receipt_id as string);
    expect(r.allocations).toEqual([
      { transaction_id: first.id, amount_paise: 10_000 },
      { transaction_id: second.id, amount_paise: 2_000 },
    ]);
    expect(r).toMatchObject({ utr: 'REF1', credit_paise: 3_000, source: 'bank' });
  });

  it('confirms a pending claim whose reference is in the narration, as the business would', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 50_000 });
    const claim = await h.request('POST', `${new URL(d.pay_page_url).pathname}/claim`, {
      payload: new URLSearchParams({ reference: '630599990001' }).toString(),
      headers: FORM,
    });
    expect(claim.status).toBe(303);
    const res = await upload(biz, statement([['UPI/CR/630599990001/BUYER/okicici', '300.00', 'X9']]));
    expect(res.body.data).toMatchObject({ matched: 1 });
    const [c] = await credits(biz);
    expect(c).toMatchObject({ status: 'matched', matched_by: 'claim', transaction_id: d.id });
    const claims = await biz.get(`/v1/transactions/${d.id}/claims`);
    expect(claims.body.data[0]).toMatchObject({ status: 'confirmed' });
    expect(await receipt(biz, c?.receipt_id as string)).toMatchObject({ source: 'claim', utr: '630599990001' });
    expect(await due(biz, d.id)).toMatchObject({ balance_paise: 20_000, status: 'pending' });
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(1);
  });

  it('refuses a file without a header or with a bad line, naming it, and records nothing', async () => {
    const biz = await h.newBusiness();
    const none = await upload(biz, 'Name,Amount\nRavi,100\n');
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ field: 'csv', message: expect.stringMatching(/no header row/) });
    const bad = await upload(
      biz,
      statement([
        ['one', '10.00'],
        ['two', 'ten'],
      ]),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('line 5: "ten" is not an amount');
    const json = await biz.post('/v1/bank-statements', { csv: 'x' });
    expect(json.status).toBe(400);
    expect(await credits(biz)).toEqual([]);
  });

  it('records each credit once when one statement is uploaded by two requests at once', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 10_000, invoice_number: 'RACE-1' });
    const csv = statement([
      ['NEFT-RACE-1-PAYER ONE', '100.00', 'N1'],
      ['UPI-someone@okhdfc-630512349999', '42.00', 'N2'],
    ]);
    const [a, b] = await Promise.all([upload(biz, csv), upload(biz, csv)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.credits + b.body.data.credits).toBe(2);
    expect(a.body.data.duplicates + b.body.data.duplicates).toBe(2);
    expect(await credits(biz)).toHaveLength(2);
    expect(await due(biz, d.id)).toMatchObject({ status: 'paid', amount_paid_paise: 10_000 });
    const receipts = await biz.get(`/v1/contacts/${d.contact_id}/payments`);
    expect(receipts.body.data).toHaveLength(1);
  });
});

describe('the review queue: apply and ignore', () => {
  it('applies a credit to a due, remembers the payer, and matches that payer next time', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Kiran Rao', amount_paise: 40_000 });
    const res = await upload(biz, statement([['UPI-K RAO-kiran.rao@okhdfcbank-630500000001', '400.00', 'A1']]));
    expect(res.body.data).toMatchObject({ suggested: 1 });
    const [c] = await credits(biz);
    // The due whose balance is the amount, then its contact whose balance is the amount too.
    expect(c?.suggestions).toEqual([
      { transaction_id: d.id, contact_id: d.contact_id, reason: 'amount' },
      { transaction_id: null, contact_id: d.contact_id, reason: 'contact_balance' },
    ]);

    const applied = await biz.post(`/v1/bank-credits/${c?.id}/apply`, { transaction_id: d.id });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.data).toMatchObject({
      status: 'matched',
      matched_by: 'owner',
      transaction_id: d.id,
      contact_id: d.contact_id,
    });
    expect(await due(biz, d.id)).toMatchObject({ status: 'paid' });
    expect((await biz.post(`/v1/bank-credits/${c?.id}/apply`, { contact_id: d.contact_id })).status).toBe(409);
    expect((await biz.post(`/v1/bank-credits/${c?.id}/ignore`)).status).toBe(409);

    const later = await newDue(biz, { contact_name: 'Kiran Rao', amount_paise: 90_000 });
    h.clock.advance(1000);
    const next = await upload(
      biz,
      statement([['UPI-K RAO-kiran.rao@okhdfcbank-630500000002', '250.00', 'A2']], '21/11/2026'),
    );
    expect(next.body.data).toMatchObject({ matched: 1 });
    const [newest] = await credits(biz, '?status=matched');
    expect(newest).toMatchObject({ matched_by: 'payer', contact_id: d.contact_id, transaction_id: null });
    expect(await due(biz, later.id)).toMatchObject({ balance_paise: 65_000 });
  });

  it('applies to a contact, ignores, and refuses bad input and other businesses', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Zed', amount_paise: 1_000 });
    await upload(
      biz,
      statement([
        ['CASH DEPOSIT BRANCH', '7.00', 'C1'],
        ['NEFT-UNKNOWN PARTY', '8.00', 'C2'],
      ]),
    );
    const [first, second] = await credits(biz, '?status=unmatched');
    const id = first?.id as string;
    expect((await biz.post(`/v1/bank-credits/${id}/apply`, {})).body.error).toMatchObject({ field: 'transaction_id' });
    expect(
      (await biz.post(`/v1/bank-credits/${id}/apply`, { transaction_id: d.id, contact_id: d.contact_id })).status,
    ).toBe(400);
    expect((await biz.post(`/v1/bank-credits/${id}/apply`, { transaction_id: 'nope' })).body.error).toMatchObject({
      field: 'transaction_id',
    });
    expect((await biz.post(`/v1/bank-credits/${id}/apply`, { transaction_id: MISSING })).status).toBe(404);
    expect((await biz.get('/v1/bank-credits?status=done')).status).toBe(400);
    expect((await other.post(`/v1/bank-credits/${id}/apply`, { contact_id: d.contact_id })).status).toBe(404);
    expect((await other.post(`/v1/bank-credits/${id}/ignore`)).status).toBe(404);
    expect(await credits(other)).toEqual([]);

    const applied = await biz.post(`/v1/bank-credits/${id}/apply`, { contact_id: d.contact_id });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.data).toMatchObject({ status: 'matched', contact_id: d.contact_id, transaction_id: null });
    const ignored = await biz.post(`/v1/bank-credits/${second?.id}/ignore`);
    expect(ignored.status).toBe(200);
    expect(ignored.body.data).toMatchObject({ status: 'ignored', receipt_id: null });
    expect((await credits(biz, '?status=ignored')).map((c) => c.id)).toEqual([second?.id]);
    expect((await biz.post(`/v1/bank-credits/${second?.id}/apply`, { contact_id: d.contact_id })).status).toBe(409);
  });
});

describe('reversing a receipt that a bank credit recorded', () => {
  it('puts the credit back in the review queue with fresh suggestions, forgets its payer, and lets the owner apply it again', async () => {
    const biz = await h.newBusiness();
    const wrong = await newDue(biz, { contact_name: 'Wrong Buyer', amount_paise: 30_000, invoice_number: 'INV-77' });
    const right = await newDue(biz, { contact_name: 'Right Buyer', amount_paise: 50_000 });
    const narration = 'UPI-RIGHT BUYER-right.buyer@okaxis-630512340077-INV-77';
    const res = await upload(biz, statement([[narration, '300.00', 'U77']]));
    expect(res.body.data).toMatchObject({ matched: 1 });
    const [matched] = await credits(biz);
    expect(matched).toMatchObject({ status: 'matched', matched_by: 'invoice_number', transaction_id: wrong.id });

    const reversed = await biz.post(`/v1/payments/${matched?.receipt_id}/reverse`, { reason: 'not this buyer' });
    expect(reversed.status, reversed.text).toBe(200);
    expect(await due(biz, wrong.id)).toMatchObject({ status: 'pending', balance_paise: 30_000 });
    const [back] = await credits(biz);
    // The reopened due's balance is the amount again: suggested, nothing of the old match kept.
    expect(back).toMatchObject({
      id: matched?.id,
      status: 'suggested',
      matched_by: null,
      transaction_id: null,
      contact_id: null,
      receipt_id: null,
      suggestions: [
        { transaction_id: wrong.id, contact_id: wrong.contact_id, reason: 'amount' },
        { transaction_id: null, contact_id: right.contact_id, reason: 'name' },
        { transaction_id: null, contact_id: wrong.contact_id, reason: 'contact_balance' },
      ],
    });
    expect(await credits(biz, '?status=matched')).toEqual([]);

    // The payer was forgotten for the wrong buyer: the next credit from it waits for the owner.
    h.clock.advance(1000);
    const next = await upload(biz, statement([['UPI-X-right.buyer@okaxis-630512340078', '1.00', 'U78']], '21/11/2026'));
    expect(next.body.data).toMatchObject({ credits: 1, matched: 0 });

    const applied = await biz.post(`/v1/bank-credits/${matched?.id}/apply`, { transaction_id: right.id });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.data).toMatchObject({ status: 'matched', matched_by: 'owner', transaction_id: right.id });
    expect(applied.body.data.receipt_id).not.toBe(matched?.receipt_id);
    expect(await due(biz, right.id)).toMatchObject({ balance_paise: 20_000 });
    expect(await due(biz, wrong.id)).toMatchObject({ balance_paise: 30_000 });
  });

  it('puts a credit that confirmed a claim back as unmatched when nothing fits it any more', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 50_000 });
    const claim = await h.request('POST', `${new URL(d.pay_page_url).pathname}/claim`, {
      payload: new URLSearchParams({ reference: '630599990002' }).toString(),
      headers: FORM,
    });
    expect(claim.status).toBe(303);
    await upload(biz, statement([['UPI/CR/630599990002/BUYER/okicici', '300.00', 'X8']]));
    const [c] = await credits(biz);
    expect(c).toMatchObject({ status: 'matched', matched_by: 'claim' });
    const reversed = await biz.post(`/v1/payments/${c?.receipt_id}/reverse`, { reason: 'cheque bounced' });
    expect(reversed.status, reversed.text).toBe(200);
    expect(await credits(biz)).toMatchObject([
      { id: c?.id, status: 'unmatched', matched_by: null, receipt_id: null, transaction_id: null, suggestions: [] },
    ]);
    // A receipt no credit recorded reverses as before, and leaves the credits alone.
    const other = await biz.post(`/v1/contacts/${d.contact_id}/payments`, { amount_paise: 1_000 });
    expect(other.status, other.text).toBe(201);
    expect((await biz.post(`/v1/payments/${other.body.data.receipt.id}/reverse`, { reason: 'typo' })).status).toBe(200);
    expect(await credits(biz, '?status=unmatched')).toHaveLength(1);
  });
});

describe('part 19 in detail', () => {
  it('reads overlapping statements: the lines seen before are skipped, the new ones recorded', async () => {
    const biz = await h.newBusiness();
    const first = await upload(
      biz,
      statement([
        ['NEFT-ONE PAYER', '1.00', 'O1'],
        ['NEFT-TWO PAYER', '2.00', 'O2'],
      ]),
    );
    expect(first.body.data).toMatchObject({ credits: 2, duplicates: 0 });
    const overlap = await upload(
      biz,
      statement([
        ['NEFT-TWO PAYER', '2.00', 'O2'],
        ['NEFT-THREE PAYER', '3.00', 'O3'],
      ]),
    );
    expect(overlap.body.data).toMatchObject({ lines: 2, credits: 1, duplicates: 1 });
    expect((await credits(biz)).map((c) => c.amount_paise).sort()).toEqual([100, 200, 300]);
  });

  it('applies the rules in order: a claim before a payment reference before an invoice number', async () => {
    const biz = await h.newBusiness();
    const claimed = await newDue(biz, { contact_name: 'Claim Buyer', amount_paise: 50_000, invoice_number: 'ORD-1' });
    const referenced = await newDue(biz, { contact_name: 'Ref Buyer', amount_paise: 50_000, invoice_number: 'ORD-2' });
    const invoiced = await newDue(biz, { contact_name: 'Inv Buyer', amount_paise: 50_000, invoice_number: 'ORD-3' });
    const { payment_reference: ref } = await due(biz, referenced.id);
    const claim = await h.request('POST', `${new URL(claimed.pay_page_url).pathname}/claim`, {
      payload: new URLSearchParams({ reference: '630599990003' }).toString(),
      headers: FORM,
    });
    expect(claim.status).toBe(303);
    const res = await upload(
      biz,
      statement([
        // Names the claim, a payment reference and an invoice number: the claim wins.
        [`UPI/630599990003/${ref}/ORD-3`, '100.00', 'P1'],
        // A payment reference and an invoice number: the reference wins.
        [`UPI/630599990004/${ref}/ORD-3`, '100.00', 'P2'],
        // More than the invoice's balance: not matched by its number.
        ['NEFT-SOMEONE-ORD-3', '600.00', 'P3'],
        ['NEFT-SOMEONE ELSE-ORD-3', '100.00', 'P4'],
      ]),
    );
    expect(res.body.data).toMatchObject({ credits: 4, matched: 3 });
    const list = await credits(biz);
    const of = (reference: string) => list.find((c) => c.reference === reference);
    expect(of('P1')).toMatchObject({ matched_by: 'claim', transaction_id: claimed.id });
    expect(of('P2')).toMatchObject({ matched_by: 'reference', transaction_id: referenced.id });
    expect(of('P3')).toMatchObject({ status: 'unmatched', receipt_id: null });
    expect(of('P4')).toMatchObject({ matched_by: 'invoice_number', transaction_id: invoiced.id });
  });

  it("records the narration's UTR on the receipt when the line has no reference", async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 10_000, invoice_number: 'UTR-TEST-1' });
    const res = await upload(biz, statement([['NEFT*HDFC0000123*N307261234567890*UTR-TEST-1', '100.00']]));
    expect(res.body.data).toMatchObject({ matched: 1 });
    const [c] = await credits(biz);
    expect(await receipt(biz, c?.receipt_id as string)).toMatchObject({
      utr: 'N307261234567890',
      payment_method: 'bank_transfer',
      source: 'bank',
    });
    expect(await due(biz, d.id)).toMatchObject({ status: 'paid' });
  });

  it('records one receipt when a credit names a claim that the business confirms by hand at the same moment', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { amount_paise: 50_000 });
    const claimed = await h.request('POST', `${new URL(d.pay_page_url).pathname}/claim`, {
      payload: new URLSearchParams({ reference: '630599990009' }).toString(),
      headers: FORM,
    });
    expect(claimed.status).toBe(303);
    const [claim] = (await biz.get(`/v1/transactions/${d.id}/claims`)).body.data;
    const [byBank, byHand] = await Promise.all([
      upload(biz, statement([['UPI/CR/630599990009/BUYER', '500.00', 'Z9']])),
      biz.post(`/v1/transactions/${d.id}/claims/${claim.id}/confirm`),
    ]);
    expect(byBank.status, byBank.text).toBe(201);
    expect([200, 409]).toContain(byHand.status);
    const receipts = (await biz.get(`/v1/contacts/${d.contact_id}/payments`)).body.data;
    expect(receipts).toHaveLength(1);
    expect(await due(biz, d.id)).toMatchObject({ status: 'paid', amount_paid_paise: 50_000 });
    // Whoever confirmed it, the bank credit says what happened: matched by the claim, or waiting.
    const [c] = await credits(biz);
    if (byHand.status === 409) expect(c).toMatchObject({ matched_by: 'claim', receipt_id: receipts[0].id });
    else expect(c?.receipt_id).toBeNull();
  });

  it('leaves the whole statement or none of it when the store fails mid-upload', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { contact_name: 'Crash One', amount_paise: 10_000, invoice_number: 'CR-1' });
    const second = await newDue(biz, { contact_name: 'Crash Two', amount_paise: 20_000, invoice_number: 'CR-2' });
    const csv = statement([
      ['NEFT-CRASH ONE-CR-1', '100.00', 'K1'],
      ['NEFT-NOBODY', '3.00', 'K2'],
      // The third credit's payment is where the store fails: after the first was written.
      ['NEFT-CRASH TWO-CR-2', '123.45', 'K3'],
    ]);
    const events = (await eventsOf(h, biz.business.id)).length;
    await failPaymentsOf(12_345);
    try {
      const failed = await h.uncheckedResponses(() => upload(biz, csv));
      expect(failed.status).toBeGreaterThanOrEqual(500);
    } finally {
      await failPaymentsOf(null);
    }
    expect(await credits(biz)).toEqual([]);
    expect(await due(biz, first.id)).toMatchObject({ status: 'pending', amount_paid_paise: 0 });
    expect((await biz.get(`/v1/contacts/${first.contact_id}/payments`)).body.data).toEqual([]);
    expect((await eventsOf(h, biz.business.id)).length).toBe(events);
    const statements = await h.store.db
      .selectFrom('bank_statements')
      .select('id')
      .where('business_id', '=', biz.business.id)
      .execute();
    expect(statements).toEqual([]);
    // Uploaded again once the store is well: all of it, as if the first attempt never happened.
    const again = await upload(biz, csv);
    expect(again.body.data).toMatchObject({ credits: 3, duplicates: 0, matched: 2 });
    expect(await due(biz, first.id)).toMatchObject({ status: 'paid' });
    expect(await due(biz, second.id)).toMatchObject({ amount_paid_paise: 12_345 });
  });
});

/**
 * A fault in the store: every insert of a payment of `paise` fails (a trigger), as a full disk or
 * a lost connection fails a statement in the middle of a transaction. null removes it.
 */
async function failPaymentsOf(paise: number | null) {
  const db = h.store.db;
  if (STORE === 'sqlite') {
    await sql`drop trigger if exists bank_test_fault`.execute(db);
    if (paise !== null) {
      await sql`create trigger bank_test_fault before insert on payments when new.amount_paise = ${sql.lit(paise)}
        begin select raise(abort, 'disk I/O error (test fault)'); end`.execute(db);
    }
    return;
  }
  await sql`drop trigger if exists bank_test_fault on payments`.execute(db);
  if (paise !== null) {
    await sql`create or replace function bank_test_fault() returns trigger language plpgsql as $$
      begin raise exception 'connection lost (test fault)'; end $$`.execute(db);
    await sql`create trigger bank_test_fault before insert on payments for each row
      when (new.amount_paise = ${sql.lit(paise)}) execute function bank_test_fault()`.execute(db);
  }
}

describe('many lines of one statement', () => {
  it('never pays a due beyond its balance when several lines name it, and suggests only what is still open', async () => {
    const biz = await h.newBusiness();
    const invoiced = await newDue(biz, { contact_name: 'Twice Buyer', amount_paise: 10_000, invoice_number: 'INV-77' });
    const referenced = await newDue(biz, { contact_name: 'Ref Twice', amount_paise: 5_000, due_date: '2026-11-25' });
    const { payment_reference: ref } = await due(biz, referenced.id);
    const res = await upload(
      biz,
      statement([
        ['NEFT CR-INV-77-A', '60.00', 'T1'],
        // 60.00 more than the 40.00 left: not matched by the invoice number.
        ['NEFT CR-INV-77-B', '60.00', 'T2'],
        ['NEFT CR-INV-77-C', '40.00', 'T3'],
        [`UPI-REF-ref@okaxis-630512349001-${ref}`, '50.00', 'T4'],
        // The due is paid by T4: the same reference again goes to the contact's credit.
        [`UPI-REF-ref@okaxis-630512349002-${ref}`, '50.00', 'T5'],
        // 50.00 equals no open due's balance any more (T4 paid it): no suggestion by amount.
        ['IMPS-630512349003-SOMEONE', '50.00', 'T6'],
      ]),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ credits: 6, matched: 4 });
    const list = await credits(biz);
    const of = (reference: string) => list.find((c) => c.reference === reference);
    expect(of('T1')).toMatchObject({ matched_by: 'invoice_number', transaction_id: invoiced.id });
    expect(of('T2')).toMatchObject({ status: 'unmatched', receipt_id: null });
    expect(of('T3')).toMatchObject({ matched_by: 'invoice_number', transaction_id: invoiced.id });
    expect(of('T4')).toMatchObject({ matched_by: 'reference', transaction_id: referenced.id });
    expect(of('T5')).toMatchObject({ matched_by: 'reference', transaction_id: referenced.id });
    expect(of('T6')?.suggestions.filter((s) => s.reason === 'amount')).toEqual([]);
    expect(await due(biz, invoiced.id)).toMatchObject({ status: 'paid', balance_paise: 0 });
    expect(await due(biz, referenced.id)).toMatchObject({ status: 'paid', balance_paise: 0 });
    expect(await contactOf(biz, referenced.contact_id)).toMatchObject({ credit_paise: 5_000 });
    const t5 = await receipt(biz, of('T5')?.receipt_id as string);
    expect(t5).toMatchObject({ amount_paise: 5_000, credit_paise: 5_000, allocations: [] });
    expect(await eventsOf(h, biz.business.id, 'transaction.paid')).toHaveLength(2);
    // The running totals (written once for the statement's lines) agree with the rows.
    expect(await differences(biz)).toEqual([]);
  });

  it('confirms a claim once: the next line naming its due by reference pays as a receipt, a third naming the claim again is not a claim', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Claim Then Ref', amount_paise: 30_000 });
    const { payment_reference: ref } = await due(biz, d.id);
    const claim = await h.request('POST', `${new URL(d.pay_page_url).pathname}/claim`, {
      payload: new URLSearchParams({ reference: '630599990077' }).toString(),
      headers: FORM,
    });
    expect(claim.status).toBe(303);
    const res = await upload(
      biz,
      statement([
        ['UPI/CR/630599990077/BUYER/okicici', '200.00', 'C1'],
        [`UPI/CR/630599990078/${ref}/okicici`, '100.00', 'C2'],
        ['UPI/CR/630599990077/BUYER AGAIN/okicici', '10.00', 'C3'],
      ]),
    );
    expect(res.status, res.text).toBe(201);
    const list = await credits(biz);
    const of = (reference: string) => list.find((c) => c.reference === reference);
    expect(of('C1')).toMatchObject({ matched_by: 'claim', transaction_id: d.id });
    expect(of('C2')).toMatchObject({ matched_by: 'reference', transaction_id: d.id });
    expect(of('C3')).toMatchObject({ matched_by: null, receipt_id: null });
    expect(await due(biz, d.id)).toMatchObject({ status: 'paid', balance_paise: 0 });
    const claims = await biz.get(`/v1/transactions/${d.id}/claims`);
    expect(claims.body.data.map((c: { status: string }) => c.status)).toEqual(['confirmed']);
    expect(await receipt(biz, of('C1')?.receipt_id as string)).toMatchObject({ source: 'claim', amount_paise: 20_000 });
    expect(await receipt(biz, of('C2')?.receipt_id as string)).toMatchObject({ source: 'bank', amount_paise: 10_000 });
  });

  it('records a line that appears twice in one file once', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Dup Buyer', amount_paise: 50_000, invoice_number: 'INV-88' });
    const line: [string, string, string] = ['NEFT-DUP BUYER-INV-88', '100.00', 'D1'];
    const res = await upload(biz, statement([line, line, ['NEFT-DUP BUYER-INV-88 SECOND', '100.00', 'D2']]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ lines: 3, credits: 2, duplicates: 1, matched: 2 });
    expect(await credits(biz)).toHaveLength(2);
    expect(await due(biz, d.id)).toMatchObject({ balance_paise: 30_000 });
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(2);
  });

  it('carries what an early line teaches to lines far down a long statement', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Long Buyer', amount_paise: 100_000, due_date: '2026-11-25' });
    const other = await newDue(biz, { contact_name: 'Amount Buyer', amount_paise: 77_700 });
    const { payment_reference: ref } = await due(biz, d.id);
    const filler = Array.from({ length: 600 }, (_, i): [string, string, string] => [
      `IMPS-6305${String(i).padStart(8, '0')}-NOBODY`,
      '1.00',
      `F${i}`,
    ]);
    const res = await upload(
      biz,
      statement([
        [`UPI-LONG-long@okaxis-630512348001-${ref}`, '10.00', 'L1'],
        ...filler,
        // Far below the first line: the payer learnt from L1, and a suggestion by amount.
        ['UPI-LONG-long@okaxis-630512348002-NA', '20.00', 'L2'],
        ['IMPS-630512348003-SOMEONE', '777.00', 'L3'],
      ]),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ credits: 603, matched: 2, suggested: 1, unmatched: 600 });
    const matched = await credits(biz, '?status=matched');
    expect(matched.map((c) => [c.reference, c.matched_by, c.contact_id])).toEqual([
      ['L2', 'payer', d.contact_id],
      ['L1', 'reference', d.contact_id],
    ]);
    const [suggested] = await credits(biz, '?status=suggested');
    expect(suggested).toMatchObject({ reference: 'L3' });
    expect(suggested?.suggestions[0]).toEqual({
      transaction_id: other.id,
      contact_id: other.contact_id,
      reason: 'amount',
    });
    expect(await due(biz, d.id)).toMatchObject({ balance_paise: 97_000 });
    expect(await differences(biz)).toEqual([]);
  });

  it('keeps nothing of a long statement that fails in a later chunk, and records it all when uploaded again', async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { contact_name: 'Early Buyer', amount_paise: 10_000, invoice_number: 'CH-1' });
    const second = await newDue(biz, { contact_name: 'Late Buyer', amount_paise: 20_000, invoice_number: 'CH-2' });
    const filler = Array.from({ length: 598 }, (_, i): [string, string, string] => [
      `IMPS-6307${String(i).padStart(8, '0')}-NOBODY`,
      '1.00',
      `G${i}`,
    ]);
    // The first line is in the first chunk of 500; the last, whose payment fails, in the second.
    const csv = statement([['NEFT CR-CH-1', '100.00', 'E1'], ...filler, ['NEFT CR-CH-2', '123.45', 'E2']]);
    await failPaymentsOf(12_345);
    try {
      const failed = await h.uncheckedResponses(() => upload(biz, csv));
      expect(failed.status).toBeGreaterThanOrEqual(500);
    } finally {
      await failPaymentsOf(null);
    }
    const kept = await h.store.db
      .selectFrom('bank_credits')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('business_id', '=', biz.business.id)
      .executeTakeFirstOrThrow();
    expect(Number(kept.n)).toBe(0);
    expect(await due(biz, first.id)).toMatchObject({ status: 'pending', amount_paid_paise: 0 });
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(0);
    expect(await differences(biz)).toEqual([]);

    const again = await upload(biz, csv);
    expect(again.status, again.text).toBe(201);
    expect(again.body.data).toMatchObject({ credits: 600, duplicates: 0, matched: 2, unmatched: 598 });
    expect(await due(biz, first.id)).toMatchObject({ status: 'paid' });
    expect(await due(biz, second.id)).toMatchObject({ amount_paid_paise: 12_345 });
    expect((await biz.get(`/v1/contacts/${first.contact_id}/payments`)).body.data).toHaveLength(1);
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(2);
    expect(await differences(biz)).toEqual([]);
  });
});
