import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_AUDITED } from '../src/contacts/service.js';
import { ADJUSTMENT_AUDITED, CLAIM_AUDITED, DUE_AUDITED, RECEIPT_AUDITED } from '../src/transactions/audit.js';
import { overdueSweeper } from '../src/workers/overdue-sweeper.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * PRODUCT part 23, as a property: after random money changes over HTTP (dues created, changed,
 * deleted, paid in part or in full, receipts with and without allocations, credit used,
 * adjustments, reversals, claims confirmed and rejected, buyers merged, the overdue sweep), every
 * change has its entry: replaying each due's, receipt's, adjustment's, claim's and buyer's entries
 * oldest first, each entry's "before" is the value the entries before it left, and the last
 * "after" is the row's value now (a deleted due: every field null).
 */

const NOW = '2026-11-21T06:30:00.000Z';
const DAY = 86_400_000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** The randomized runs' bound (hundreds of requests each). */
const PROPERTY_TIMEOUT_MS = 240_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());

const dateArb = fc
  .integer({ min: -40, max: 20 })
  .map((d) => new Date(Date.parse('2026-11-21') + d * DAY).toISOString().slice(0, 10));
const contactArb = fc.integer({ min: 0, max: 2 });
const op = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      contact: contactArb,
      amount: fc.integer({ min: 1, max: 50_000 }),
      date: dateArb,
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('payPart' as const),
      due: fc.nat(),
      amount: fc.integer({ min: 1, max: 30_000 }),
    }),
    weight: 2,
  },
  fc.record({ kind: fc.constant('markPaid' as const), due: fc.nat() }),
  {
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      due: fc.nat(),
      amount: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: undefined }),
      date: fc.option(dateArb, { nil: undefined }),
      notes: fc.option(fc.constantFrom('cement', 'steel', null), { nil: undefined }),
      paused: fc.option(fc.boolean(), { nil: undefined }),
    }),
    weight: 2,
  },
  fc.record({ kind: fc.constant('delete' as const), due: fc.nat() }),
  {
    arbitrary: fc.record({
      kind: fc.constant('receipt' as const),
      contact: contactArb,
      amount: fc.integer({ min: 1, max: 60_000 }),
      due: fc.option(fc.nat(), { nil: null }),
    }),
    weight: 2,
  },
  fc.record({
    kind: fc.constant('adjust' as const),
    due: fc.nat(),
    amount: fc.integer({ min: 1, max: 20_000 }),
    type: fc.constantFrom('tds', 'discount', 'credit_note', 'write_off'),
  }),
  fc.record({ kind: fc.constant('reverse' as const), receipt: fc.nat() }),
  {
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      due: fc.nat(),
      confirm: fc.boolean(),
      part: fc.boolean(),
    }),
    weight: 2,
  },
  fc.record({ kind: fc.constant('rename' as const), contact: contactArb, phone: fc.boolean() }),
  fc.record({ kind: fc.constant('merge' as const), keep: contactArb, merge: contactArb }),
  fc.record({ kind: fc.constant('nextDay' as const) }),
  fc.record({ kind: fc.constant('sweep' as const) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

interface Run {
  biz: TestBusiness;
  dues: { id: string; payPage: string }[];
  receipts: string[];
}

async function contactId(biz: TestBusiness, n: number): Promise<string> {
  const res = await biz.post('/v1/contacts', { name: `Audit Buyer ${n}` });
  expect(res.status, res.text).toBeLessThan(300);
  return res.body.data.id as string;
}

async function apply(run: Run, o: Op) {
  const { biz } = run;
  const pick = (n: number) => run.dues[n % Math.max(1, run.dues.length)];
  let res: { status: number; text: string; body: any } | undefined;
  switch (o.kind) {
    case 'create': {
      res = await biz.post('/v1/transactions', {
        amount_paise: o.amount,
        due_date: o.date,
        contact_name: `Audit Buyer ${o.contact}`,
      });
      const data = res.body.data as { id: string; pay_page_url: string };
      if (res.status === 201) run.dues.push({ id: data.id, payPage: new URL(data.pay_page_url).pathname });
      break;
    }
    case 'payPart': {
      const due = pick(o.due);
      if (due) res = await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: o.amount });
      break;
    }
    case 'markPaid': {
      const due = pick(o.due);
      if (due) res = await biz.post(`/v1/transactions/${due.id}/mark-paid`, {});
      break;
    }
    case 'patch': {
      const due = pick(o.due);
      const body = {
        ...(o.amount !== undefined && { amount_paise: o.amount }),
        ...(o.date !== undefined && { due_date: o.date }),
        ...(o.notes !== undefined && { notes: o.notes }),
        ...(o.paused !== undefined && { reminders_paused: o.paused }),
      };
      if (due) res = await biz.patch(`/v1/transactions/${due.id}`, body);
      break;
    }
    case 'delete': {
      const due = pick(o.due);
      if (due) res = await biz.delete(`/v1/transactions/${due.id}`);
      break;
    }
    case 'receipt': {
      const id = await contactId(biz, o.contact);
      const due = o.due === null ? undefined : pick(o.due);
      let allocations: { transaction_id: string; amount_paise: number }[] | undefined;
      if (due) {
        const read = (await biz.get(`/v1/transactions/${due.id}`)).body as {
          data?: { contact_id: string; balance_paise: number; status: string };
        };
        if (read.data && read.data.contact_id === id && read.data.status !== 'paid') {
          const part = Math.min(read.data.balance_paise, o.amount, Math.ceil(read.data.balance_paise / 2));
          allocations = [{ transaction_id: due.id, amount_paise: part }];
        }
      }
      const r = await biz.post(`/v1/contacts/${id}/payments`, {
        amount_paise: o.amount,
        ...(allocations && { allocations }),
      });
      expect(r.status, r.text).toBe(201);
      run.receipts.push(r.body.data.receipt.id as string);
      break;
    }
    case 'adjust': {
      const due = pick(o.due);
      if (due) res = await biz.post(`/v1/transactions/${due.id}/adjustments`, { kind: o.type, amount_paise: o.amount });
      break;
    }
    case 'reverse': {
      const id = run.receipts[o.receipt % Math.max(1, run.receipts.length)];
      if (id) res = await biz.post(`/v1/payments/${id}/reverse`, { reason: 'audit property' });
      break;
    }
    case 'claim': {
      const due = pick(o.due);
      if (!due) break;
      const made = await h.request('POST', `${due.payPage}/claim`, { payload: 'reference=UTR-P', headers: FORM });
      if (made.status !== 303) break; // a paid or deleted due takes no claim
      const claims = await biz.get(`/v1/transactions/${due.id}/claims`);
      const pending = (claims.body.data as { id: string; status: string }[]).find((c) => c.status === 'pending');
      if (!pending) break;
      const path = `/v1/transactions/${due.id}/claims/${pending.id}`;
      res = o.confirm
        ? await biz.post(`${path}/confirm`, o.part ? { amount_paise: 1 } : {})
        : await biz.post(`${path}/reject`);
      break;
    }
    case 'rename': {
      const id = await contactId(biz, o.contact);
      res = await biz.patch(
        `/v1/contacts/${id}`,
        o.phone ? { phone: `98765${String(Date.now()).slice(-5)}` } : { language: 'hi' },
      );
      break;
    }
    case 'merge': {
      if (o.keep === o.merge) break;
      await h.services.contactMerge.merge(biz.business, await contactId(biz, o.keep), await contactId(biz, o.merge));
      break;
    }
    case 'nextDay':
      h.clock.advance(DAY);
      break;
    case 'sweep':
      await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(new AbortController().signal);
      break;
  }
  // Refusals (400 over the balance, 404 deleted, 409 paid) are part of the game; a 5xx never is.
  if (res) expect(res.status, res.text).toBeLessThan(500);
}

type Value = string | number | boolean | null;

function normal(v: unknown): Value {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return JSON.stringify(v);
}

/**
 * Replays the business's entries of `entity` per entity id and checks each against `rows`: every
 * entry's before is the replayed value, and the end is the row's value of each field.
 */
async function checkReplay(
  businessId: string,
  entity: string,
  rows: { id: string; [field: string]: unknown }[],
  fields: readonly string[],
  { start = {}, gone = () => false }: { start?: Record<string, Value>; gone?: (row: never) => boolean } = {},
) {
  const entries = await h.store.db
    .selectFrom('audit_log')
    .select(['entity_id', 'action', 'changes'])
    .where('business_id', '=', businessId)
    .where('entity', '=', entity)
    .orderBy('id')
    .execute();
  const replayed = new Map<string, Record<string, Value>>();
  for (const e of entries) {
    const state = replayed.get(e.entity_id) ?? { ...start };
    const changes = JSON.parse(e.changes) as Record<string, [Value, Value]>;
    for (const [field, [before, after]] of Object.entries(changes)) {
      if (!fields.includes(field)) continue;
      expect(state[field] ?? null, `${entity} ${e.entity_id} ${e.action} ${field}: before`).toEqual(before);
      state[field] = after;
    }
    replayed.set(e.entity_id, state);
  }
  for (const row of rows) {
    const state = replayed.get(row.id) ?? { ...start };
    const isGone = gone(row as never);
    for (const field of fields) {
      const now = isGone ? null : normal(row[field]);
      expect(state[field] ?? null, `${entity} ${row.id} ${field}: replayed`).toEqual(now);
    }
  }
  return entries.length;
}

async function checkAll(businessId: string) {
  const db = h.store.db;
  const byBusiness = <T extends 'transactions' | 'receipts' | 'adjustments' | 'payment_claims' | 'contacts'>(t: T) =>
    db
      .selectFrom(t as 'transactions')
      .selectAll()
      .where('business_id', '=', businessId)
      .execute() as unknown as Promise<{ id: string; [field: string]: unknown }[]>;
  const dues = await byBusiness('transactions');
  await checkReplay(businessId, 'transaction', dues, DUE_AUDITED, {
    gone: (d: { deleted_at: string | null }) => d.deleted_at !== null,
  });
  const receipts = await byBusiness('receipts');
  await checkReplay(businessId, 'receipt', receipts, RECEIPT_AUDITED);
  await checkReplay(businessId, 'adjustment', await byBusiness('adjustments'), ADJUSTMENT_AUDITED);
  // A claim's entries are its decisions: made pending (on the pay page, no entry), then decided.
  await checkReplay(businessId, 'claim', await byBusiness('payment_claims'), CLAIM_AUDITED, {
    start: { status: 'pending', decided_at: null },
  });
  await checkReplay(businessId, 'contact', await byBusiness('contacts'), CONTACT_AUDITED);
  // Every receipt was recorded once, and a receipt's money reached the log with it.
  const recorded = await db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', businessId)
    .where('action', '=', 'receipt.recorded')
    .executeTakeFirstOrThrow();
  expect(Number(recorded.n)).toBe(receipts.length);
}

describe('the audit log after random money changes', () => {
  it(
    'has an entry for every change, and replaying them gives every audited field as it is now',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 35 }), async (ops) => {
          h.clock.set(NOW);
          const run: Run = { biz: await h.newBusiness(), dues: [], receipts: [] };
          for (const o of ops) await apply(run, o);
          await checkAll(run.biz.business.id);
        }),
        { numRuns: 15 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('notices an unrecorded change (the check itself can fail)', async () => {
    h.clock.set(NOW);
    const biz = await h.newBusiness();
    const due = await biz.post('/v1/transactions', {
      amount_paise: 500,
      due_date: '2026-12-01',
      contact_name: 'Audit Check Traders',
    });
    expect(due.status).toBe(201);
    await h.store.db
      .updateTable('transactions')
      .set({ notes: 'changed behind the log' })
      .where('id', '=', due.body.data.id)
      .execute();
    await expect(checkAll(biz.business.id)).rejects.toThrow(/notes: replayed/);
  });
});
