import { sql } from 'kysely';
import { expect } from 'vitest';
import { type Harness, STORE, type TestBusiness } from './harness.js';

/** Helpers shared by the due lifecycle tests (PRODUCT part 10). */

export async function newDue(
  biz: TestBusiness,
  body: Record<string, unknown> = {},
): Promise<{ id: string; contact_id: string; pay_page_url: string; updated_at: string }> {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 10_000,
    due_date: '2026-12-01',
    contact_name: 'Lifecycle Buyer',
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/**
 * Pays whatever the due still owes through POST /payments, for the property tests' random
 * operations: the answer is returned, not checked (a paid or deleted due answers 409 or 404).
 */
export async function payRest(biz: TestBusiness, id: string) {
  const due = await biz.get(`/v1/transactions/${id}`);
  const balance = (due.body as { data?: { balance_paise: number } }).data?.balance_paise ?? 1;
  return biz.post(`/v1/transactions/${id}/payments`, { amount_paise: Math.max(1, balance) });
}

export async function eventsOf(h: Harness, businessId: string, type?: string) {
  const rows = await h.store.db
    .selectFrom('events')
    .selectAll()
    .where('business_id', '=', businessId)
    .$if(type !== undefined, (q) => q.where('type', '=', type as string))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.payload) }));
}

export async function summaryOf(biz: TestBusiness) {
  const res = await biz.get('/v1/summary');
  expect(res.status).toBe(200);
  return res.body.data;
}

export async function contactOf(biz: TestBusiness, id: string) {
  const res = await biz.get(`/v1/contacts/${id}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

export function remindersOf(h: Harness, transactionId: string) {
  return h.store.db
    .selectFrom('reminders')
    .select(['status', 'reason', 'scheduled_for'])
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Gives every due (or contact) of the business one creation time finer than a millisecond, as a
 * statement's now() writes it on PostgreSQL (which keeps microseconds; the API writes whole
 * milliseconds): what a cursor or an export batch must walk to the store's full precision.
 */
export async function createdToTheMicrosecond(
  h: Harness,
  table: 'transactions' | 'contacts',
  biz: TestBusiness,
): Promise<void> {
  const now = STORE === 'postgres' ? sql<string>`now()` : sql<string>`'2026-11-21T06:30:00.123456Z'`;
  await h.store.db.updateTable(table).set({ created_at: now }).where('business_id', '=', biz.business.id).execute();
}
