import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimPayment, signInByLink } from './helpers/dashboard.js';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/** A deleted due answers 404 to every action, as an id that never existed; a paid due still answers 409. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z' });
});
afterAll(() => h.close());

/** Every action on a due, as [label, request]. */
function actions(biz: TestBusiness, id: string, claimId: string) {
  const base = `/v1/transactions/${id}`;
  return [
    ['mark-paid', () => biz.post(`${base}/mark-paid`, {})],
    ['payments', () => biz.post(`${base}/payments`, { amount_paise: 100 })],
    ['remind', () => biz.post(`${base}/remind`, {})],
    ['PATCH', () => biz.patch(base, { notes: 'changed' })],
    ['adjustments', () => biz.post(`${base}/adjustments`, { kind: 'discount', amount_paise: 100 })],
    ['claim confirm', () => biz.post(`${base}/claims/${claimId}/confirm`, {})],
    ['claim reject', () => biz.post(`${base}/claims/${claimId}/reject`, {})],
  ] as const;
}

async function dueWithClaim(biz: TestBusiness) {
  const due = await newDue(biz, { contact_phone: '+91 98765 40404' });
  await claimPayment(h, due.pay_page_url, 'UTR-DELETED-1');
  const claims = await biz.get(`/v1/transactions/${due.id}/claims`);
  expect(claims.body.data).toHaveLength(1);
  return { due, claimId: claims.body.data[0].id as string };
}

describe('a deleted due', () => {
  it('answers 404 to every action and changes nothing', async () => {
    const biz = await h.newBusiness();
    const { due, claimId } = await dueWithClaim(biz);
    expect((await biz.delete(`/v1/transactions/${due.id}`)).status).toBe(200);
    const summary = (await biz.get('/v1/summary')).body.data;
    for (const [label, call] of actions(biz, due.id, claimId)) {
      const res = await call();
      expect(res.status, `${label}: ${res.text}`).toBe(404);
      expect(res.body.error.code, label).toBe('not_found');
    }
    expect((await biz.delete(`/v1/transactions/${due.id}`)).status).toBe(404);
    for (const read of ['', '/payments', '/claims', '/adjustments']) {
      expect((await biz.get(`/v1/transactions/${due.id}${read}`)).status, read).toBe(404);
    }
    expect((await biz.get('/v1/summary')).body.data).toEqual(summary);
  });

  it('answers 404 to the dashboard actions too', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    const client = await signInByLink(h, biz.business.id);
    const page = `/dashboard/dues/${due.id}`;
    const form = await client.get(page);
    expect(form.status).toBe(200);
    expect((await biz.delete(`/v1/transactions/${due.id}`)).status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
    for (const action of ['mark-paid', 'payments', 'remind', 'edit']) {
      const res = await client.request('POST', `${page}/${action}`, {
        _csrf: csrf,
        amount: '1',
        due_date: '2026-12-01',
      });
      expect(res.status, action).toBe(404);
    }
  });
});

describe('a paid due', () => {
  it('still answers 409 to what only an open due takes', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz);
    expect((await biz.post(`/v1/transactions/${due.id}/mark-paid`, {})).status).toBe(200);
    for (const [label, call] of [
      ['mark-paid', () => biz.post(`/v1/transactions/${due.id}/mark-paid`, {})],
      ['payments', () => biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 100 })],
      ['remind', () => biz.post(`/v1/transactions/${due.id}/remind`, {})],
      ['PATCH', () => biz.patch(`/v1/transactions/${due.id}`, { notes: 'changed' })],
      ['DELETE', () => biz.delete(`/v1/transactions/${due.id}`)],
    ] as const) {
      const res = await call();
      expect(res.status, `${label}: ${res.text}`).toBe(409);
    }
  });
});
