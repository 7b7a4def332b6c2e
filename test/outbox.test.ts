import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

const NOW = '2026-11-21T06:30:00.000Z';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

function events(businessId: string) {
  return h.store.db.selectFrom('events').selectAll().where('business_id', '=', businessId).orderBy('id').execute();
}

describe('outbox events', () => {
  it('writes contact.created and transaction.created with the documented payloads', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/transactions', {
      amount_paise: 4200,
      due_date: '2026-12-24',
      contact_name: 'Outbox Buyer',
      contact_phone: '9876577777',
      invoice_number: 'INV-7',
      notes: 'gift boxes',
    });
    const t = res.body.data;
    const rows = await events(biz.business.id);
    expect(rows.map((e) => e.type)).toEqual(['contact.created', 'transaction.created']);
    for (const row of rows) {
      expect(row).toMatchObject({ created_at: NOW, dispatched_at: null });
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(JSON.parse(rows[1]?.payload ?? '')).toEqual({
      id: t.id,
      contactId: t.contact_id,
      contactName: 'Outbox Buyer',
      contactPhone: '919876577777',
      amountPaise: 4200,
      currency: 'INR',
      status: 'pending',
      dueDate: '2026-12-24',
      invoiceNumber: 'INV-7',
      notes: 'gift boxes',
      createdAt: NOW,
      updatedAt: NOW,
    });
  });

  it('writes nothing for a change that rolls back', async () => {
    const biz = await h.newBusiness();
    await expect(
      h.store.db.transaction().execute(async (trx) => {
        await h.services.transactions.createIn(trx, biz.business, {
          amount_paise: 100,
          due_date: '2026-12-01',
          contact_name: 'Rolled Back',
        });
        throw new Error('simulated failure after the writes');
      }),
    ).rejects.toThrow('simulated failure');
    expect(await events(biz.business.id)).toEqual([]);
    expect((await biz.get('/v1/contacts')).body.total).toBe(0);
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
    expect((await biz.get('/v1/summary')).body.data).toMatchObject({
      pending: { count: 0, paise: 0 },
      contact_count: 0,
    });
  });

  it('writes no event for requests that fail', async () => {
    const biz = await h.newBusiness();
    await biz.post('/v1/transactions', { amount_paise: -1, due_date: '2026-12-01', contact_name: 'Nope' });
    await biz.post('/v1/transactions', {
      amount_paise: 1,
      due_date: '2026-12-01',
      contact_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(await events(biz.business.id)).toEqual([]);
  });
});
