import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newDue } from './helpers/dues.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * PRODUCT part 23: a money change and its audit entry commit together or not at all. The fault is
 * injected at the last write of the request's transaction (the Idempotency-Key's stored response,
 * written after the change, its events and its audit entries): the request fails, and neither the
 * change nor its entries remain. Without the fault, the same request (same key) writes both.
 */

const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());
afterEach(() => clearFault());

async function injectFault() {
  if (STORE === 'sqlite') {
    await sql`CREATE TRIGGER fail_idempotency_save BEFORE UPDATE ON idempotency_keys
      WHEN NEW.response_status <> 0 BEGIN SELECT RAISE(ABORT, 'injected fault'); END`.execute(h.store.db);
  } else {
    await sql`CREATE OR REPLACE FUNCTION fail_idempotency_save() RETURNS trigger AS $$
      BEGIN IF NEW.response_status <> 0 THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END
      $$ LANGUAGE plpgsql`.execute(h.store.db);
    await sql`CREATE TRIGGER fail_idempotency_save BEFORE UPDATE ON idempotency_keys
      FOR EACH ROW EXECUTE FUNCTION fail_idempotency_save()`.execute(h.store.db);
  }
}

async function clearFault() {
  if (STORE === 'sqlite') await sql`DROP TRIGGER IF EXISTS fail_idempotency_save`.execute(h.store.db);
  else await sql`DROP TRIGGER IF EXISTS fail_idempotency_save ON idempotency_keys`.execute(h.store.db);
}

/** What the business has: its entries, receipts, dues (as read) and totals. */
async function snapshot(biz: TestBusiness) {
  const count = async (table: 'audit_log' | 'receipts' | 'payments') =>
    Number(
      (
        await h.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('business_id', '=', biz.business.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const dues = await biz.get('/v1/transactions?limit=100');
  const summary = await biz.get('/v1/summary');
  return {
    entries: await count('audit_log'),
    receipts: await count('receipts'),
    payments: await count('payments'),
    dues: dues.body.data,
    summary: summary.body.data,
  };
}

async function actions(biz: TestBusiness): Promise<string[]> {
  const res = await biz.get('/v1/audit-log?limit=200');
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((e: { action: string }) => e.action);
}

const cases: [string, (biz: TestBusiness) => Promise<{ path: string; body: object }>, string[]][] = [
  [
    "a buyer's receipt",
    async (biz) => {
      const due = await newDue(biz, { amount_paise: 10_000 });
      return { path: `/v1/contacts/${due.contact_id}/payments`, body: { amount_paise: 15_000 } };
    },
    ['transaction.paid', 'receipt.recorded'],
  ],
  [
    "a due's payment",
    async (biz) => {
      const due = await newDue(biz, { amount_paise: 10_000 });
      return { path: `/v1/transactions/${due.id}/payments`, body: { amount_paise: 4_000 } };
    },
    ['transaction.part_paid', 'receipt.recorded'],
  ],
  [
    "a new due settled from the buyer's credit",
    async (biz) => {
      const c = await biz.post('/v1/contacts', { name: 'Credit Traders' });
      const contactId = c.body.data.id as string;
      expect((await biz.post(`/v1/contacts/${contactId}/payments`, { amount_paise: 9_000 })).status).toBe(201);
      return { path: '/v1/transactions', body: { contact_id: contactId, amount_paise: 6_000, due_date: '2026-12-01' } };
    },
    ['receipt.applied', 'transaction.paid', 'transaction.created'],
  ],
];

describe('a money change and its audit entries commit together', () => {
  it.each(cases)('%s failing after its entries are written leaves neither', async (_name, setUp, written) => {
    const biz = await h.newBusiness();
    const { path, body } = await setUp(biz);
    const before = await snapshot(biz);
    const headers = { 'idempotency-key': `rollback-${biz.business.id}` };

    await injectFault();
    const failed = await biz.post(path, body, { headers });
    expect(failed.status, failed.text).toBe(500);
    expect(await snapshot(biz)).toEqual(before);

    await clearFault();
    const ok = await biz.post(path, body, { headers });
    expect(ok.status, ok.text).toBe(201);
    const after = await actions(biz);
    expect(after.slice(0, written.length)).toEqual(written);
    expect(after.length).toBe(before.entries + written.length);
  });
});
