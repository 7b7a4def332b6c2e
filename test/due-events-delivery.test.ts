import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDue } from './helpers/dues.js';
import type { Harness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver } from './helpers/https-receiver.js';

/** The lifecycle's events (PRODUCT part 10) as a real HTTPS receiver gets them, signed. */

const START = '2026-11-21T06:30:00.000Z';

let receiver: HttpsReceiver;
let h: Harness;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({
    now: START,
  }));
});
afterAll(() => close?.());

describe('transaction.updated, transaction.paid and transaction.deleted at a receiver', () => {
  it('delivers each change of a due with its payload, in order, signed', async () => {
    receiver.respond(() => 200);
    const biz = await h.newBusiness();
    const hook = await biz.post('/v1/webhooks', {
      url: receiver.url,
      events: ['transaction.updated', 'transaction.paid', 'transaction.deleted'],
    });
    expect(hook.status).toBe(201);
    const secret = hook.body.data.secret as string;

    const paid = await newDue(biz, { amount_paise: 9000, contact_name: 'Event Buyer' });
    await biz.patch(`/v1/transactions/${paid.id}`, { due_date: '2026-12-10' });
    await biz.post(`/v1/transactions/${paid.id}/payments`, { amount_paise: 4000 });
    await biz.post(`/v1/transactions/${paid.id}/payments`, {
      amount_paise: 5000,
      utr: 'UTR-END',
      payment_method: 'upi',
    });
    const removed = await newDue(biz, { amount_paise: 1200, contact_name: 'Event Buyer' });
    await biz.delete(`/v1/transactions/${removed.id}`);

    await h.services.webhookDispatcher.fanOut();
    await h.services.webhookDispatcher.deliverDue();
    // Attempts run concurrently: put them back in the order of the events (ids are time-ordered).
    const mine = receiver.requests
      .filter((r) => [paid.id, removed.id].includes(JSON.parse(r.body).data.id))
      .sort((a, b) => String(a.headers['x-service-event-id']).localeCompare(String(b.headers['x-service-event-id'])));
    const bodies = mine.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.event)).toEqual([
      'transaction.updated',
      'transaction.updated',
      'transaction.paid',
      'transaction.deleted',
    ]);
    for (const r of mine) {
      expect(r.headers['x-service-signature']).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));
    }
    expect(bodies[0].data).toMatchObject({ id: paid.id, dueDate: '2026-12-10', amountPaise: 9000, status: 'pending' });
    expect(bodies[1].data).toMatchObject({ id: paid.id, amountPaise: 9000 });
    expect(bodies[2].data).toEqual({
      id: paid.id,
      contactName: 'Event Buyer',
      amountPaise: 9000,
      paidAt: START,
      paymentRef: 'UTR-END',
      paymentMethod: 'upi',
    });
    expect(bodies[3].data).toMatchObject({ id: removed.id, amountPaise: 1200, status: 'pending' });
  });

  it('delivers transaction.deleted to an endpoint registered through the earlier shape', async () => {
    receiver.respond(() => 200);
    const biz = await h.newBusiness();
    const hook = await biz.post('/legacy/v1/webhooks', { url: receiver.url, events: ['transaction.deleted'] });
    expect(hook.status).toBe(201);
    const d = await newDue(biz, { amount_paise: 777, contact_name: 'Legacy Buyer' });
    expect((await biz.delete(`/v1/transactions/${d.id}`)).status).toBe(200);
    await h.services.webhookDispatcher.fanOut();
    await h.services.webhookDispatcher.deliverDue();
    const got = receiver.requests.filter((r) => JSON.parse(r.body).data.id === d.id);
    expect(got.map((r) => JSON.parse(r.body))).toEqual([
      expect.objectContaining({
        event: 'transaction.deleted',
        data: expect.objectContaining({ id: d.id, amountPaise: 777 }),
      }),
    ]);
    const [request] = got;
    expect(request?.headers['x-service-signature']).toBe(
      createHmac('sha256', hook.body.secret)
        .update(request?.body ?? '')
        .digest('hex'),
    );
  });
});
