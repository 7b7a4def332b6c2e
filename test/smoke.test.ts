import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('smoke', () => {
  it('creates and reads a due', async () => {
    const biz = await h.newBusiness();
    const me = await biz.get('/v1/me');
    expect(me.status).toBe(200);
    const created = await biz.post('/v1/transactions', { amount_paise: 12345, due_date: '2030-01-02', contact_name: 'Ravi Kumar', contact_phone: '98765 43210' });
    expect(created.status, created.text).toBe(201);
    const got = await biz.get(`/v1/transactions/${created.body.data.id}`);
    expect(got.body).toEqual({ data: created.body.data });
    const list = await biz.get('/v1/transactions?status=pending');
    expect(list.body.total).toBe(1);
    const paid = await biz.post(`/v1/transactions/${created.body.data.id}/mark-paid`);
    expect(paid.status, paid.text).toBe(200);
    const summary = await biz.get('/v1/summary');
    expect(summary.body, summary.text).toMatchObject({ data: { paid: { count: 1, paise: 12345 } } });
    const contact = await biz.get(`/v1/contacts/${created.body.data.contact_id}`);
    expect(contact.status, contact.text).toBe(200);
    console.log(JSON.stringify(created.body), JSON.stringify(contact.body), JSON.stringify(summary.body));
  });
});
