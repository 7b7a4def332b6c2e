import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { overdueSweeper } from '../src/workers/overdue-sweeper.js';
import { type AuditEntry, auditLog, OPENING_ACTIONS } from './helpers/audit.js';
import { signInByLink } from './helpers/dashboard.js';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { addStaff, signInWithPhone } from './helpers/staff.js';

/**
 * PRODUCT part 23: every change to money writes an audit entry in the change's transaction: dues
 * changed, deleted and paid, receipts recorded and reversed, credit used, adjustments, claims
 * decided; each names what was done, to which entity, each field before and after, and who.
 */

const NOW = '2026-11-21T06:30:00.000Z';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(NOW));

/** The entries of one entity, oldest first (the endpoint lists newest first). */
async function entriesOf(biz: TestBusiness, entity: string, id: string): Promise<AuditEntry[]> {
  return (await auditLog(biz, `?entity=${entity}&entity_id=${id}&limit=200`)).reverse();
}

function allEntries(biz: TestBusiness): Promise<AuditEntry[]> {
  return auditLog(biz, '?limit=200');
}

async function apiKeyActor(biz: TestBusiness) {
  const key = await h.store.db
    .selectFrom('api_keys')
    .select('id')
    .where('business_id', '=', biz.business.id)
    .executeTakeFirstOrThrow();
  return { type: 'api_key', id: key.id, name: biz.apiKey.slice(0, 12) };
}

async function receive(biz: TestBusiness, contactId: string, body: Record<string, unknown>) {
  const res = await biz.post(`/v1/contacts/${contactId}/payments`, body);
  expect(res.status, res.text).toBe(201);
  return res;
}

describe('audit entries of dues', () => {
  it('a PATCH records each changed field before and after, by the API key, with the request id', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000, due_date: '2026-12-01', notes: 'cement' });
    const res = await biz.patch(`/v1/transactions/${due.id}`, {
      amount_paise: 12_000,
      due_date: '2026-11-01',
      notes: 'cement, 20 bags',
      reminders_paused: true,
    });
    expect(res.status, res.text).toBe(200);
    const [, updated] = await entriesOf(biz, 'transaction', due.id);
    expect(updated).toEqual({
      id: expect.any(String),
      at: NOW,
      actor: await apiKeyActor(biz),
      action: 'transaction.updated',
      entity: 'transaction',
      entity_id: due.id,
      changes: {
        amount_paise: [10_000, 12_000],
        due_date: ['2026-12-01', '2026-11-01'],
        notes: ['cement', 'cement, 20 bags'],
        reminders_paused: [0, 1],
        status: ['pending', 'overdue'],
      },
      request_id: res.headers['x-request-id'],
    });
  });

  it('a PATCH that changes nothing, or is refused, writes no entry', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000 });
    expect((await biz.patch(`/v1/transactions/${due.id}`, { amount_paise: 10_000 })).status).toBe(200);
    const bad = await biz.patch(`/v1/transactions/${due.id}`, { amount_paise: -5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('amount_paise');
    expect((await biz.patch(`/v1/transactions/${due.id}`, { amount_paise: 11_000 })).status).toBe(200);
    expect((await entriesOf(biz, 'transaction', due.id)).map((e) => [e.action, e.changes.amount_paise])).toEqual([
      ['transaction.created', [null, 10_000]],
      ['transaction.updated', [10_000, 11_000]],
    ]);
  });

  it('a DELETE records every field before and null after', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 7_000, due_date: '2026-12-05', invoice_number: 'D-1' });
    expect((await biz.delete(`/v1/transactions/${due.id}`)).status).toBe(200);
    const [, deleted] = await entriesOf(biz, 'transaction', due.id);
    expect(deleted).toMatchObject({ action: 'transaction.deleted', actor: { type: 'api_key' } });
    expect(deleted?.changes).toMatchObject({
      contact_id: [due.contact_id, null],
      amount_paise: [7_000, null],
      due_date: ['2026-12-05', null],
      invoice_number: ['D-1', null],
      status: ['pending', null],
    });
  });

  it('a part payment and mark-paid record the receipt and what each did to the due', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000 });
    const part = await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 4_000, utr: 'UTR-4' });
    expect(part.status, part.text).toBe(201);
    const paid = await biz.post(`/v1/transactions/${due.id}/mark-paid`, { payment_method: 'cash' });
    expect(paid.status, paid.text).toBe(200);

    const dueEntries = await entriesOf(biz, 'transaction', due.id);
    expect(dueEntries.map((e) => [e.action, e.changes])).toEqual([
      ['transaction.created', expect.any(Object)],
      ['transaction.part_paid', { amount_paid_paise: [0, 4_000] }],
      ['transaction.paid', { amount_paid_paise: [4_000, 10_000], status: ['pending', 'paid'] }],
    ]);
    const receipts = (await allEntries(biz)).filter((e) => e.entity === 'receipt').reverse();
    expect(receipts.map((e) => [e.action, e.changes.amount_paise, e.changes.utr, e.changes.payment_method])).toEqual([
      ['receipt.recorded', [null, 4_000], [null, 'UTR-4'], [null, 'api']],
      ['receipt.recorded', [null, 6_000], undefined, [null, 'cash']],
    ]);
    expect(receipts[0]?.request_id).toBe(part.headers['x-request-id']);
    expect(receipts[1]?.request_id).toBe(paid.headers['x-request-id']);
  });

  it('a payment refused (more than the balance) writes no entry', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000 });
    const res = await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 10_001 });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('amount_paise');
    expect((await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 10_000 })).status).toBe(201);
    expect((await allEntries(biz)).map((e) => e.action)).toEqual([
      'transaction.paid',
      'receipt.recorded',
      'transaction.created',
      'contact.created',
      ...OPENING_ACTIONS,
    ]);
  });

  it('an adjustment records itself and what it did to the due', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000 });
    const res = await biz.post(`/v1/transactions/${due.id}/adjustments`, {
      kind: 'tds',
      amount_paise: 1_000,
      reason: 'TDS 10%',
    });
    expect(res.status, res.text).toBe(201);
    const id = res.body.data.adjustment.id as string;
    const [adjustment] = await entriesOf(biz, 'adjustment', id);
    expect(adjustment).toMatchObject({
      action: 'adjustment.created',
      actor: { type: 'api_key' },
      request_id: res.headers['x-request-id'],
      changes: {
        transaction_id: [null, due.id],
        contact_id: [null, due.contact_id],
        kind: [null, 'tds'],
        amount_paise: [null, 1_000],
        reason: [null, 'TDS 10%'],
      },
    });
    const last = (await entriesOf(biz, 'transaction', due.id)).at(-1);
    expect(last).toMatchObject({ action: 'transaction.adjusted', changes: { amount_adjusted_paise: [0, 1_000] } });
  });
});

describe('audit entries of receipts', () => {
  it('a receipt records its fields, then each due it paid, and the rest as credit', async () => {
    const biz = await h.newBusiness();
    const a = await newDue(biz, { contact_name: 'Ravi Traders', amount_paise: 10_000, due_date: '2026-11-01' });
    h.clock.advance(1000);
    const b = await newDue(biz, { contact_name: 'Ravi Traders', amount_paise: 20_000, due_date: '2026-11-02' });
    h.clock.advance(1000);
    const res = await receive(biz, a.contact_id, { amount_paise: 35_000, utr: 'UTR-35', payment_method: 'upi' });
    const receiptId = res.body.data.receipt.id as string;

    const [recorded] = await entriesOf(biz, 'receipt', receiptId);
    expect(recorded).toEqual({
      id: expect.any(String),
      at: '2026-11-21T06:30:02.000Z',
      actor: await apiKeyActor(biz),
      action: 'receipt.recorded',
      entity: 'receipt',
      entity_id: receiptId,
      changes: {
        contact_id: [null, a.contact_id],
        amount_paise: [null, 35_000],
        applied_paise: [null, 30_000],
        credit_paise: [null, 5_000],
        utr: [null, 'UTR-35'],
        payment_method: [null, 'upi'],
        source: [null, 'api'],
        received_on: [null, '2026-11-21'],
      },
      request_id: res.headers['x-request-id'],
    });
    for (const [due, amount] of [
      [a, 10_000],
      [b, 20_000],
    ] as const) {
      expect((await entriesOf(biz, 'transaction', due.id)).at(-1)).toMatchObject({
        action: 'transaction.paid',
        request_id: res.headers['x-request-id'],
        changes: { amount_paid_paise: [0, amount], status: ['pending', 'paid'] },
      });
    }
  });

  it('credit used by a new due is recorded on the receipt (applied) and on the due (paid)', async () => {
    const biz = await h.newBusiness();
    const c = await biz.post('/v1/contacts', { name: 'Credit Stores' });
    const contactId = c.body.data.id as string;
    const receiptId = (await receive(biz, contactId, { amount_paise: 8_000 })).body.data.receipt.id as string;
    h.clock.advance(1000);
    const due = await newDue(biz, { contact_id: contactId, amount_paise: 5_000, contact_name: undefined });

    const receipt = await entriesOf(biz, 'receipt', receiptId);
    expect(receipt.map((e) => [e.action, e.changes.applied_paise, e.changes.credit_paise])).toEqual([
      ['receipt.recorded', [null, 0], [null, 8_000]],
      ['receipt.applied', [0, 5_000], [8_000, 3_000]],
    ]);
    expect((await entriesOf(biz, 'transaction', due.id)).map((e) => [e.action, e.changes.status])).toEqual([
      ['transaction.created', [null, 'pending']],
      ['transaction.paid', ['pending', 'paid']],
    ]);
  });

  it('a reversal records the receipt reversed and each due reopened', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000, due_date: '2026-11-01' });
    const receiptId = (await receive(biz, due.contact_id, { amount_paise: 12_000 })).body.data.receipt.id as string;
    h.clock.advance(1000);
    const rev = await biz.post(`/v1/payments/${receiptId}/reverse`, { reason: 'cheque bounced' });
    expect(rev.status, rev.text).toBe(200);

    const receipt = await entriesOf(biz, 'receipt', receiptId);
    expect(receipt.at(-1)).toMatchObject({
      action: 'receipt.reversed',
      actor: { type: 'api_key' },
      request_id: rev.headers['x-request-id'],
      changes: {
        credit_paise: [2_000, 0],
        reversed_at: [null, '2026-11-21T06:30:01.000Z'],
        reversal_reason: [null, 'cheque bounced'],
      },
    });
    expect((await entriesOf(biz, 'transaction', due.id)).at(-1)).toMatchObject({
      action: 'transaction.payment_reversed',
      changes: { amount_paid_paise: [10_000, 0], status: ['paid', 'overdue'] },
    });
  });

  it("another business's receipt: its reversal is a 404, writes nothing, and its entries are not listed", async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const due = await newDue(a, { amount_paise: 5_000 });
    const receiptId = (await receive(a, due.contact_id, { amount_paise: 5_000 })).body.data.receipt.id as string;
    const before = await allEntries(a);
    expect(before.map((e) => e.action)).toContain('receipt.recorded');
    expect((await b.post(`/v1/payments/${receiptId}/reverse`, { reason: 'x' })).status).toBe(404);
    expect(await allEntries(a)).toEqual(before);
    expect((await allEntries(b)).map((e) => e.action)).toEqual([...OPENING_ACTIONS]);
    expect(await entriesOf(b, 'receipt', receiptId)).toEqual([]);
    expect(await entriesOf(b, 'transaction', due.id)).toEqual([]);
  });

  it('a receipt recorded on the dashboard names the signed-in user', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000 });
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/dues/${due.id}`;
    const res = await client.submit(page, `/dashboard/dues/${due.id}/payments`, { amount: '25' });
    expect(res.status, res.text).toBe(303);
    const last = (await entriesOf(biz, 'transaction', due.id)).at(-1);
    expect(last).toMatchObject({
      action: 'transaction.part_paid',
      actor: { type: 'user', id: biz.business.id, name: biz.business.name },
      changes: { amount_paid_paise: [0, 2_500] },
    });
    const receipt = (await allEntries(biz)).find((e) => e.entity === 'receipt');
    expect(receipt).toMatchObject({ action: 'receipt.recorded', actor: { type: 'user', id: biz.business.id } });
  });
});

describe('audit entries of staff', () => {
  it("a collector's payment on the dashboard names the collector, not the owner", async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000, contact_name: 'Staff Buyer' });
    const ravi = await addStaff(h, biz, 'collector', 'Ravi Collector');
    expect((await biz.patch(`/v1/contacts/${due.contact_id}`, { assigned_to: ravi.id })).status).toBe(200);
    const client = await signInWithPhone(h, ravi.phone);
    const res = await client.submit(`/dashboard/dues/${due.id}`, `/dashboard/dues/${due.id}/payments`, {
      amount: '30',
    });
    expect(res.status, res.text).toBe(303);
    const actor = { type: 'user', id: ravi.id, name: 'Ravi Collector' };
    expect((await allEntries(biz)).slice(0, 2)).toMatchObject([
      { action: 'transaction.part_paid', entity_id: due.id, actor },
      { action: 'receipt.recorded', actor, changes: { amount_paise: [null, 3_000] } },
    ]);
  });
});

describe('audit entries of claims', () => {
  async function dueWithClaim(biz: TestBusiness) {
    const due = await newDue(biz, { amount_paise: 10_000 });
    const res = await h.request('POST', `${new URL(due.pay_page_url).pathname}/claim`, {
      payload: new URLSearchParams({ reference: 'UTR-555' }).toString(),
      headers: FORM,
    });
    expect(res.status).toBe(303);
    const claims = await biz.get(`/v1/transactions/${due.id}/claims`);
    return { due, claimId: claims.body.data[0].id as string };
  }

  it('confirming records the decision and the payment it makes', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    h.clock.advance(1000);
    const res = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`, { amount_paise: 4_000 });
    expect(res.status, res.text).toBe(200);
    expect(await entriesOf(biz, 'claim', claimId)).toMatchObject([
      {
        action: 'claim.confirmed',
        actor: { type: 'api_key' },
        request_id: res.headers['x-request-id'],
        changes: { status: ['pending', 'confirmed'], decided_at: [null, '2026-11-21T06:30:01.000Z'] },
      },
    ]);
    const receipt = (await allEntries(biz)).find((e) => e.entity === 'receipt');
    expect(receipt?.changes).toMatchObject({
      source: [null, 'claim'],
      claim_id: [null, claimId],
      amount_paise: [null, 4_000],
      utr: [null, 'UTR-555'],
    });
    expect((await entriesOf(biz, 'transaction', due.id)).at(-1)?.action).toBe('transaction.part_paid');
  });

  it('rejecting records the decision and nothing else; another business cannot', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    expect((await other.post(`/v1/transactions/${due.id}/claims/${claimId}/reject`)).status).toBe(404);
    expect(await entriesOf(biz, 'claim', claimId)).toEqual([]);
    const res = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/reject`);
    expect(res.status, res.text).toBe(200);
    const before = await allEntries(biz);
    expect(before[0]).toMatchObject({
      action: 'claim.rejected',
      entity_id: claimId,
      changes: { status: ['pending', 'rejected'] },
    });
    expect((await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/reject`)).status).toBe(409);
    expect(await allEntries(biz)).toEqual(before);
  });

  it("confirming a buyer's account claim records the decision and the receipt", async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 10_000 });
    const contact = await biz.get(`/v1/contacts/${due.contact_id}`);
    const accountUrl = contact.body.data.account_url as string | undefined;
    expect(accountUrl, 'the contact read gives its account page').toEqual(expect.any(String));
    const posted = await h.request('POST', `${new URL(accountUrl as string).pathname}/claim`, {
      payload: new URLSearchParams({ amount: '60', reference: 'UTR-60' }).toString(),
      headers: FORM,
    });
    expect(posted.status, posted.text).toBe(303);
    const claims = await biz.get(`/v1/contacts/${due.contact_id}/claims`);
    const claimId = claims.body.data[0].id as string;
    const res = await biz.post(`/v1/contacts/${due.contact_id}/claims/${claimId}/confirm`);
    expect(res.status, res.text).toBe(200);
    expect((await entriesOf(biz, 'claim', claimId)).map((e) => e.action)).toEqual(['claim.confirmed']);
    const receipt = (await allEntries(biz)).find((e) => e.entity === 'receipt');
    expect(receipt?.changes).toMatchObject({ amount_paise: [null, 6_000], claim_id: [null, claimId] });
  });
});

describe('audit entries of bank matching', () => {
  it("a bank credit naming a due's claim records the decision and the payment, by the system (bank matching)", async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 8_000, contact_name: 'Bank Buyer' });
    const made = await h.request('POST', `${new URL(due.pay_page_url).pathname}/claim`, {
      payload: new URLSearchParams({ reference: '630577770009' }).toString(),
      headers: FORM,
    });
    expect(made.status).toBe(303);
    const claimId = (await biz.get(`/v1/transactions/${due.id}/claims`)).body.data[0].id as string;
    const csv = `Date,Narration,Ref No.,Withdrawal,Deposit,Balance\n20/11/2026,"UPI/630577770009/BANK BUYER",,,"80.00",\n`;
    const res = await biz.post('/v1/bank-statements', undefined, {
      payload: csv,
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.status, res.text).toBe(201);
    expect((await entriesOf(biz, 'claim', claimId)).map((e) => [e.action, e.actor.type, e.changes.status])).toEqual([
      ['claim.confirmed', 'system', ['pending', 'confirmed']],
    ]);
    expect((await entriesOf(biz, 'transaction', due.id)).at(-1)).toMatchObject({
      action: 'transaction.paid',
      request_id: res.headers['x-request-id'],
    });
  });
});

describe('audit entries of the system', () => {
  it('the overdue sweep records each due it moves, by the system', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 3_000, due_date: '2026-11-22' });
    h.clock.set('2026-11-23T06:30:00.000Z');
    expect(
      await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(new AbortController().signal),
    ).toBeGreaterThan(0);
    expect((await entriesOf(biz, 'transaction', due.id)).at(-1)).toMatchObject({
      action: 'transaction.updated',
      actor: { type: 'system', id: null, name: null },
      request_id: null,
      changes: { status: ['pending', 'overdue'] },
    });
  });
});
