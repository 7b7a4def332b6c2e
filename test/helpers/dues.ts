import { expect } from 'vitest';
import type { Harness, TestBusiness } from './harness.js';

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
