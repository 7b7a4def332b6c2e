import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDate } from '../src/lib/dates.js';
import { type ScoredDue, unroundedPaymentScore } from '../src/lib/payment-score.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { payRest } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

/**
 * Issue 18: the payment score is kept incrementally (paid dues' sums in contact_scores, written by
 * the transaction that settles a due; the open part computed at the read). After any sequence of
 * changes, the score every contact read answers equals paymentScore recomputed from all of the
 * contact's rows, and the kept sums equal a rebuild from the rows.
 */

const APP_SECRET = 'score-property-secret-0123456789';
const TZ = 'Asia/Kolkata';
// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';
const DAY = 86_400_000;
/** The randomized runs' bound (hundreds of requests each). */
const PROPERTY_TIMEOUT_MS = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW, env: { WHATSAPP_APP_SECRET: APP_SECRET } });
});
afterAll(() => h.close());

const today = () => localDate(TZ, h.clock.now());
const offsetArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -30, max: 30 }) },
  { weight: 3, arbitrary: fc.integer({ min: -500, max: -31 }) },
  { weight: 2, arbitrary: fc.integer({ min: 31, max: 400 }) },
  // 16-22 years ahead: the kept sums cannot tell these apart from rounding (the rows answer).
  { weight: 1, arbitrary: fc.integer({ min: 6000, max: 8000 }) },
);
const op = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      contact: fc.integer({ min: 0, max: 2 }),
      amount: fc.integer({ min: 1, max: 50_000 }),
      offset: offsetArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('payPart' as const),
      due: fc.nat(),
      amount: fc.integer({ min: 1, max: 30_000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('payRest' as const), due: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('markPaid' as const), due: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('settleByPatch' as const), due: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('patchAmount' as const),
      due: fc.nat(),
      amount: fc.integer({ min: 1, max: 60_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('patchDate' as const), due: fc.nat(), offset: offsetArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), due: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('promise' as const),
      contact: fc.integer({ min: 0, max: 2 }),
      days: fc.integer({ min: 1, max: 40 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.constantFrom(1, 3, 10, 30, 200) }),
  },
  {
    // Money towards the contact's account: settles its dues oldest first, the rest is credit.
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('receipt' as const),
      contact: fc.integer({ min: 0, max: 2 }),
      amount: fc.integer({ min: 1, max: 60_000 }),
    }),
  },
  // Takes a receipt back: the dues it settled reopen (a receipt whose credit a due used: 409).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverse' as const), receipt: fc.nat() }) },
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

interface Run {
  biz: TestBusiness;
  phones: string[];
  ids: string[];
  /** the receipts recorded, for reversals to pick from */
  receipts: string[];
}

async function apply(run: Run, o: Op) {
  const { biz, ids } = run;
  const pick = (n: number) => ids[n % Math.max(1, ids.length)];
  const dateAt = (offset: number) => new Date(Date.parse(today()) + offset * DAY).toISOString().slice(0, 10);
  let res: { status: number; body: unknown } | undefined;
  switch (o.kind) {
    case 'create': {
      res = await biz.post('/v1/transactions', {
        amount_paise: o.amount,
        due_date: dateAt(o.offset),
        contact_name: `Score Buyer ${o.contact}`,
        contact_phone: run.phones[o.contact],
      });
      if (res.status === 201) ids.push((res.body as { data: { id: string } }).data.id);
      break;
    }
    case 'payPart': {
      const id = pick(o.due);
      if (id) res = await biz.post(`/v1/transactions/${id}/payments`, { amount_paise: o.amount });
      break;
    }
    case 'payRest': {
      const id = pick(o.due);
      if (id) res = await payRest(biz, id);
      break;
    }
    case 'markPaid': {
      const id = pick(o.due);
      if (id) res = await biz.post(`/v1/transactions/${id}/mark-paid`, {});
      break;
    }
    case 'settleByPatch': {
      // PATCH the amount down to what was paid: settles the due (PRODUCT part 10).
      const id = pick(o.due);
      if (!id) break;
      const due = (await biz.get(`/v1/transactions/${id}`)).body as { data?: { amount_paid_paise: number } };
      const paid = due.data?.amount_paid_paise ?? 0;
      if (paid > 0) res = await biz.patch(`/v1/transactions/${id}`, { amount_paise: paid });
      break;
    }
    case 'patchAmount': {
      const id = pick(o.due);
      if (id) res = await biz.patch(`/v1/transactions/${id}`, { amount_paise: o.amount });
      break;
    }
    case 'patchDate': {
      const id = pick(o.due);
      if (id) res = await biz.patch(`/v1/transactions/${id}`, { due_date: dateAt(o.offset) });
      break;
    }
    case 'delete': {
      const id = pick(o.due);
      if (id) res = await biz.delete(`/v1/transactions/${id}`);
      break;
    }
    case 'promise':
      // A promise on the contact's oldest open due (none: the reply is only kept).
      await sendWhatsAppMessage(h, APP_SECRET, run.phones[o.contact] as string, `in ${o.days} days`);
      break;
    case 'advance':
      h.clock.advance(o.days * DAY);
      break;
    case 'receipt': {
      const contact = await biz.post('/v1/contacts', {
        name: `Score Buyer ${o.contact}`,
        phone: run.phones[o.contact],
      });
      const contactId = (contact.body as { data: { id: string } }).data.id;
      res = await biz.post(`/v1/contacts/${contactId}/payments`, { amount_paise: o.amount });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      run.receipts.push((res.body as { data: { receipt: { id: string } } }).data.receipt.id);
      break;
    }
    case 'reverse': {
      const id = run.receipts[o.receipt % Math.max(1, run.receipts.length)];
      if (id) res = await biz.post(`/v1/payments/${id}/reverse`, { reason: 'score property test' });
      break;
    }
  }
  if (res) expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
}

/** Each contact's score as paymentScore defines it, from all of its rows (before rounding). */
async function recompute(businessId: string) {
  const dues = await h.store.db
    .selectFrom('transactions')
    .select(['contact_id', 'amount_paise', 'due_date', 'paid_at', 'promise_date'])
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .execute();
  const byContact = new Map<string, ScoredDue[]>();
  for (const d of dues) {
    const list = byContact.get(d.contact_id) ?? [];
    list.push({
      amountPaise: Number(d.amount_paise),
      dueDate: d.due_date,
      paidDate: d.paid_at === null ? null : localDate(TZ, new Date(d.paid_at)),
      promiseDate: d.promise_date,
    });
    byContact.set(d.contact_id, list);
  }
  return new Map([...byContact].map(([id, list]) => [id, unroundedPaymentScore(list, today())]));
}

/** Equal once rounded, or (within rounding of the sums) on either side of a .5 boundary. */
function expectScore(actual: number, exact: number, what: string) {
  if (Math.abs((exact % 1) - 0.5) < 1e-6) expect([Math.floor(exact), Math.ceil(exact)], what).toContain(actual);
  else expect(actual, `${what}: exact ${exact}`).toBe(Math.round(exact));
}

function freshPhone(): string {
  return `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
}

/** Runs the operations on a new business, then compares every contact read with the rows. */
async function runAndCheck(ops: readonly Op[]) {
  h.clock.set(NOW);
  const biz = await h.newBusiness();
  // Clock jumps of years must not end the business's plan (402 on every read).
  await h.services.businesses.update(biz.business.id, { planExpiresAt: '2099-01-01T00:00:00.000Z' });
  const run: Run = { biz, phones: [freshPhone(), freshPhone(), freshPhone()], ids: [], receipts: [] };
  for (const o of ops) await apply(run, o);
  const expected = await recompute(biz.business.id);
  const flags = new Map<string, string>();
  for (const [contactId, exact] of expected) {
    const res = await biz.get(`/v1/contacts/${contactId}`);
    expect(res.status, res.text).toBe(200);
    expectScore(res.body.data.payment_score, exact, `contact ${contactId}`);
    flags.set(contactId, res.body.data.risk_flag);
  }
  // A list page computes the standings of its contacts in one statement: the same risk flags.
  const page = await biz.get('/v1/contacts?limit=50');
  expect(page.status, page.text).toBe(200);
  for (const item of page.body.data as { id: string; risk_flag: string }[]) {
    if (flags.has(item.id)) expect(item.risk_flag).toBe(flags.get(item.id));
  }
  // The kept sums, and every other kept figure, are what `verify` recomputes from the rows.
  expect((await verifyStore(h.store.db, { businessId: biz.business.id, integrity: false })).differences).toEqual([]);
  return expected;
}

describe('payment score kept incrementally', () => {
  it(
    'equals the score recomputed from all rows after any sequence of changes',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
          await runAndCheck(ops);
        }),
        { numRuns: 25 },
      );
      // Some hundreds of requests: a loaded machine's PostgreSQL takes more than the default bound.
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('counts a broken promise of a paid due, and a due paid ahead of its date at its amount', async () => {
    const expected = await runAndCheck([
      { kind: 'create', contact: 0, amount: 40_000, offset: -20 },
      { kind: 'create', contact: 0, amount: 10_000, offset: 60 },
      { kind: 'promise', contact: 0, days: 3 },
      { kind: 'advance', days: 10 },
      { kind: 'markPaid', due: 0 },
      { kind: 'markPaid', due: 1 },
      { kind: 'advance', days: 30 },
    ]);
    expect([...expected.values()]).toHaveLength(1);
  });

  it('follows receipts and their reversals: dues settled, reopened, and settled again from credit', async () => {
    await runAndCheck([
      { kind: 'create', contact: 0, amount: 10_000, offset: -20 },
      { kind: 'create', contact: 0, amount: 5_000, offset: 10 },
      { kind: 'advance', days: 3 },
      { kind: 'receipt', contact: 0, amount: 12_000 },
      { kind: 'receipt', contact: 0, amount: 8_000 },
      { kind: 'advance', days: 3 },
      { kind: 'reverse', receipt: 0 },
      { kind: 'create', contact: 0, amount: 1_000, offset: 30 },
      { kind: 'reverse', receipt: 1 },
      { kind: 'advance', days: 30 },
    ]);
  });

  it('answers from the rows when a paid due dated decades ahead outweighs the rest', async () => {
    // Paid today and paid 20 years ahead of its date: the sums alone would be rounding.
    await runAndCheck([
      { kind: 'create', contact: 0, amount: 30_000, offset: -40 },
      { kind: 'create', contact: 0, amount: 20_000, offset: 7300 },
      { kind: 'markPaid', due: 0 },
      { kind: 'markPaid', due: 1 },
      { kind: 'create', contact: 1, amount: 20_000, offset: 7300 },
      { kind: 'markPaid', due: 2 },
      { kind: 'create', contact: 1, amount: 5_000, offset: -5 },
    ]);
  });
});
