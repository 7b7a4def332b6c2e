import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/** "I have paid" claims, listed, confirmed (in full or in part) or rejected (PRODUCT part 11). */

const NOW = '2026-11-24T06:30:00.000Z';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(async () => {
  await h?.close();
});

type Due = Awaited<ReturnType<typeof newDue>>;

async function claim(due: Due, reference?: string) {
  const fields: Record<string, string> = reference === undefined ? {} : { reference };
  const res = await h.request('POST', `${new URL(due.pay_page_url).pathname}/claim`, {
    payload: new URLSearchParams(fields).toString(),
    headers: FORM,
  });
  expect(res.status).toBe(303);
}

async function claimsOf(biz: TestBusiness, due: Due) {
  const res = await biz.get(`/v1/transactions/${due.id}/claims`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: string; reference: string | null; status: string }[];
}

async function dueWithClaim(biz: TestBusiness, reference: string | null = 'UTR-555') {
  const due = await newDue(biz, { amount_paise: 10_000 });
  await claim(due, reference ?? undefined);
  const [first] = await claimsOf(biz, due);
  if (!first) throw new Error('no claim');
  return { due, claimId: first.id };
}

const laterEvents = async (biz: TestBusiness) =>
  (await eventsOf(h, biz.business.id)).filter((e) => !['transaction.created', 'contact.created'].includes(e.type));

describe('GET /v1/transactions/:id/claims', () => {
  it('lists the claims made on the pay page, oldest first', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    expect(await claimsOf(biz, due)).toEqual([]);
    await claim(due, 'UTR-1');
    await claim(due);
    const claims = await claimsOf(biz, due);
    expect(claims).toEqual([
      { id: expect.any(String), reference: 'UTR-1', status: 'pending', created_at: NOW, decided_at: null },
      { id: expect.any(String), reference: null, status: 'pending', created_at: NOW, decided_at: null },
    ]);
  });

  it("answers 404 for another business's due, an unknown one, a deleted one and a non-uuid id", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const due = await newDue(biz);
    expect((await other.get(`/v1/transactions/${due.id}/claims`)).status).toBe(404);
    expect((await biz.get(`/v1/transactions/${randomUUID()}/claims`)).status).toBe(404);
    expect((await biz.get('/v1/transactions/nope/claims')).status).toBe(404);
    const gone = await newDue(biz);
    expect((await biz.delete(`/v1/transactions/${gone.id}`)).status).toBe(200);
    expect((await biz.get(`/v1/transactions/${gone.id}/claims`)).status).toBe(404);
  });
});

describe('POST /v1/transactions/:id/claims/:claimId/confirm', () => {
  it('records the balance as a upi payment with the claim reference, settling the due', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    const res = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.claim).toEqual({
      id: claimId,
      reference: 'UTR-555',
      status: 'confirmed',
      created_at: NOW,
      decided_at: NOW,
    });
    expect(res.body.data.payment).toMatchObject({
      transaction_id: due.id,
      amount_paise: 10_000,
      utr: 'UTR-555',
      payment_method: 'upi',
      source: 'claim',
    });
    expect(res.body.data.transaction).toMatchObject({ id: due.id, status: 'paid', balance_paise: 0, utr: 'UTR-555' });
    const events = await laterEvents(biz);
    expect(events.map((e) => e.type).sort()).toEqual(['payment.received', 'transaction.paid']);
    expect(events.find((e) => e.type === 'payment.received')?.data).toEqual({
      transactionId: due.id,
      amountPaise: 10_000,
      paidAt: NOW,
      paymentRef: 'UTR-555',
      paymentMethod: 'upi',
    });
    // The earlier shape's claimCount still counts the claims made.
    const legacy = await biz.get(`/legacy/v1/transactions/${due.id}`);
    expect(legacy.body).toMatchObject({ claimCount: 1, status: 'paid', paymentRef: 'UTR-555' });
  });

  it('records part of the balance with amount_paise: transaction.updated and payment.received', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz, null);
    const res = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`, { amount_paise: 4000 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.payment).toMatchObject({ amount_paise: 4000, utr: null, source: 'claim' });
    expect(res.body.data.transaction).toMatchObject({
      status: 'pending',
      balance_paise: 6000,
      amount_paid_paise: 4000,
    });
    expect((await laterEvents(biz)).map((e) => e.type)).toEqual(['transaction.updated', 'payment.received']);
  });

  it('answers 409 for a decided claim or a paid due, and changes nothing', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    await claim(due, 'second');
    const second = (await claimsOf(biz, due))[1]?.id;
    expect(
      (await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`, { amount_paise: 1000 })).status,
    ).toBe(200);
    const again = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`, { amount_paise: 1000 });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/reject`)).status).toBe(409);

    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`)).status).toBe(200);
    expect((await biz.post(`/v1/transactions/${due.id}/claims/${second}/confirm`)).status).toBe(409);
    expect((await claimsOf(biz, due)).map((c) => c.status)).toEqual(['confirmed', 'pending']);
    expect((await biz.get(`/v1/transactions/${due.id}/payments`)).body.data).toHaveLength(2);
  });

  it('answers 400 naming amount_paise above the balance or not positive, and for unknown fields', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    for (const body of [{ amount_paise: 10_001 }, { amount_paise: 0 }, { amount_paise: 'ten' }]) {
      const res = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field).toBe('amount_paise');
    }
    const extra = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`, { colour: 'red' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toContain('colour');
    expect((await claimsOf(biz, due))[0]?.status).toBe('pending');
    expect(await laterEvents(biz)).toEqual([]);
  });

  it("answers 404 for an unknown claim, another due's claim and another business's due", async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    const otherDue = await newDue(biz);
    expect((await biz.post(`/v1/transactions/${due.id}/claims/${randomUUID()}/confirm`)).status).toBe(404);
    expect((await biz.post(`/v1/transactions/${otherDue.id}/claims/${claimId}/confirm`)).status).toBe(404);
    expect((await biz.post(`/v1/transactions/${due.id}/claims/nope/confirm`)).status).toBe(404);
    const other = await h.newBusiness();
    expect((await other.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`)).status).toBe(404);
    expect((await other.post(`/v1/transactions/${due.id}/claims/${claimId}/reject`)).status).toBe(404);
    expect((await claimsOf(biz, due))[0]?.status).toBe('pending');
  });

  it('confirms one of two concurrent confirmations of the same claim', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    const answers = await Promise.all(
      [1, 2, 3].map(() => biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`, { amount_paise: 1000 })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect((await biz.get(`/v1/transactions/${due.id}/payments`)).body.data).toHaveLength(1);
  });
});

describe('POST /v1/transactions/:id/claims/:claimId/reject', () => {
  it('marks the claim rejected and changes nothing else', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    const res = await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/reject`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      id: claimId,
      reference: 'UTR-555',
      status: 'rejected',
      created_at: NOW,
      decided_at: NOW,
    });
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data).toMatchObject({
      status: 'pending',
      balance_paise: 10_000,
    });
    expect(await laterEvents(biz)).toEqual([]);
    expect((await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/confirm`)).status).toBe(409);
    expect((await biz.post(`/v1/transactions/${due.id}/claims/${claimId}/reject`, { note: 'x' })).status).toBe(400);
  });
});

describe('the pay page without a payments gateway', () => {
  it('offers no "Pay online" and answers 404 to its form', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    const path = new URL(due.pay_page_url).pathname;
    expect((await h.request('GET', path)).text).not.toContain('Pay online');
    expect((await h.request('POST', `${path}/online`, { payload: '', headers: FORM })).status).toBe(404);
  });
});

describe('claims.listPending (the service behind the dashboard)', () => {
  it("lists the business's pending claims on open dues and accounts, newest first, with their due or amount", async () => {
    const biz = await h.newBusiness();
    const first = await newDue(biz, { amount_paise: 5000, contact_name: 'First Buyer', invoice_number: 'A-1' });
    await claim(first, 'older');
    h.clock.advance(60_000);
    const second = await newDue(biz, { amount_paise: 7000, contact_name: 'Second Buyer' });
    await claim(second, 'newer');
    h.clock.advance(60_000);
    const account = (await biz.get(`/v1/contacts/${first.contact_id}`)).body.data.account_url as string;
    const accountClaim = await h.request('POST', `${new URL(account).pathname}/claim`, {
      payload: new URLSearchParams({ amount: '12.50', reference: 'whole account' }).toString(),
      headers: FORM,
    });
    expect(accountClaim.status, accountClaim.text).toBe(303);
    const decided = await newDue(biz);
    await claim(decided, 'rejected one');
    const [rejected] = await claimsOf(biz, decided);
    expect((await biz.post(`/v1/transactions/${decided.id}/claims/${rejected?.id}/reject`)).status).toBe(200);
    const settled = await newDue(biz);
    await claim(settled, 'paid anyway');
    expect((await biz.post(`/v1/transactions/${settled.id}/mark-paid`)).status).toBe(200);
    await claim(await newDue(await h.newBusiness()), 'another business');

    const pending = await h.services.claims.listPending(biz.business, { limit: 10, offset: 0 });
    expect(
      pending.map((p) =>
        p.kind === 'due'
          ? [p.claim.reference, p.transactionId, p.contactName, p.balancePaise]
          : [p.claim.reference, p.contactId, p.contactName, p.claimedPaise],
      ),
    ).toEqual([
      ['whole account', first.contact_id, 'First Buyer', 1250],
      ['newer', second.id, 'Second Buyer', 7000],
      ['older', first.id, 'First Buyer', 5000],
    ]);
    expect(pending[2]).toMatchObject({ dueDate: '2026-12-01', invoiceNumber: 'A-1' });
    expect(await h.services.claims.listPending(biz.business, { limit: 1, offset: 1 })).toHaveLength(1);
    h.clock.set(NOW);
  });
});
