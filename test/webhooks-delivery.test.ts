import { createHmac, timingSafeEqual } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/http/metrics.js';
import { createHttpSender } from '../src/webhooks/sender.js';
import { startWorkers } from '../src/workers/runner.js';
import { webhookDispatcherJob } from '../src/workers/webhook-dispatcher.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver, ReceivedRequest } from './helpers/https-receiver.js';

/**
 * Delivery to a real HTTPS receiver on 127.0.0.1 (self-signed certificate, trusted through an
 * injected CA), driven step by step with an injected clock: fan-out, signature, headers and
 * payloads, retry timing, redelivery, delete, unsubscribed events, timeouts, auto-disable.
 */

const START = '2026-11-21T06:30:00.000Z';
const MINUTE = 60_000;

let receiver: HttpsReceiver;
let h: Harness;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({
    now: START,
    senderTimeoutMs: 1500,
  }));
});
afterAll(() => close?.());
// Each test starts at START with an empty queue: what earlier tests left behind is not sent.
beforeEach(async () => {
  receiver.requests.length = 0;
  receiver.respond(() => 200);
  h.clock.set(START);
  await h.store.db.updateTable('webhook_deliveries').set({ next_attempt_at: null }).execute();
  await h.store.db.updateTable('events').set({ dispatched_at: START }).where('dispatched_at', 'is', null).execute();
});

/** Fans out what is waiting and makes every attempt that is due now. */
async function dispatch(): Promise<number> {
  await h.services.webhookDispatcher.fanOut();
  return h.services.webhookDispatcher.deliverDue();
}

async function endpointFor(biz: TestBusiness, events: string[], path = '/hook') {
  const res = await biz.post('/v1/webhooks', { url: receiver.url.replace(/\/hook$/, path), events });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string; url: string };
}

async function createDue(biz: TestBusiness, name = 'Ravi Traders') {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 123450,
    due_date: '2026-12-01',
    contact_name: name,
    contact_phone: '+91 98765 43210',
    invoice_number: 'INV-7',
    notes: 'net 10',
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; contact_id: string };
}

async function deliveries(biz: TestBusiness, endpointId: string) {
  const res = await biz.get(`/v1/webhooks/${endpointId}/deliveries`);
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

function verify(req: ReceivedRequest, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(req.body).digest();
  const given = Buffer.from(String(req.headers['x-service-signature']), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('delivery of outbox events', () => {
  it('POSTs a signed transaction.created with the headers of PRODUCT part 5', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    const due = await createDue(biz);
    expect(await dispatch()).toBe(1);

    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0] as ReceivedRequest;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    expect(verify(req, endpoint.secret)).toBe(true);
    expect(verify(req, 'f'.repeat(64))).toBe(false);
    expect(req.headers['x-service-event']).toBe('transaction.created');

    const event = await h.store.db
      .selectFrom('events')
      .selectAll()
      .where('business_id', '=', biz.business.id)
      .where('type', '=', 'transaction.created')
      .executeTakeFirstOrThrow();
    expect(req.headers['x-service-event-id']).toBe(event.id);
    expect(event.dispatched_at).not.toBeNull();

    expect(JSON.parse(req.body)).toStrictEqual({
      event: 'transaction.created',
      timestamp: '2026-11-21T06:30:00Z',
      data: {
        id: due.id,
        contactId: due.contact_id,
        contactName: 'Ravi Traders',
        contactPhone: '919876543210',
        amountPaise: 123450,
        currency: 'INR',
        status: 'pending',
        dueDate: '2026-12-01',
        invoiceNumber: 'INV-7',
        notes: 'net 10',
        createdAt: START,
        updatedAt: START,
      },
    });

    const [log] = await deliveries(biz, endpoint.id);
    expect(req.headers['x-service-delivery-id']).toBe(log.id);
    expect(log).toStrictEqual({
      id: expect.any(String),
      endpoint_id: endpoint.id,
      event_id: event.id,
      event: 'transaction.created',
      status: 'delivered',
      attempts: 1,
      response_status: 200,
      error: null,
      delivered_at: START,
      next_retry_at: null,
      created_at: START,
      attempt_log: [
        {
          attempt: 1,
          status: 'delivered',
          response_status: 200,
          error: null,
          duration_ms: expect.any(Number),
          next_retry_at: null,
          attempted_at: START,
        },
      ],
    });
    const [listed] = (await biz.get('/v1/webhooks')).body.data;
    expect(listed.last_triggered_at).toBe(START);
    expect(listed.failure_count).toBe(0);
  });

  it('sends transaction.paid with exactly SPEC fields plus paymentMethod, and contact.created', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.paid', 'contact.created']);
    const contact = await biz.post('/v1/contacts', { name: 'Meera Textiles', phone: '9876500000' });
    const due = await biz.post('/v1/transactions', {
      amount_paise: 5000,
      due_date: '2026-11-30',
      contact_id: contact.body.data.id,
    });
    h.clock.advance(90_500);
    const paid = await biz.post(`/v1/transactions/${due.body.data.id}/mark-paid`, {
      utr: 'UTR99887766',
      payment_method: 'upi',
    });
    expect(paid.status).toBe(200);
    await dispatch();
    const byEvent = new Map(receiver.requests.map((r) => [r.headers['x-service-event'], r]));
    expect(receiver.requests).toHaveLength(2);
    for (const r of receiver.requests) expect(verify(r, endpoint.secret)).toBe(true);

    expect(JSON.parse(byEvent.get('contact.created')?.body ?? '')).toStrictEqual({
      event: 'contact.created',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      data: { id: contact.body.data.id, name: 'Meera Textiles', phone: '919876500000', createdAt: expect.any(String) },
    });
    const paidAt = paid.body.data.paid_at;
    expect(JSON.parse(byEvent.get('transaction.paid')?.body ?? '')).toStrictEqual({
      event: 'transaction.paid',
      timestamp: `${paidAt.slice(0, 19)}Z`,
      data: {
        id: due.body.data.id,
        contactName: 'Meera Textiles',
        amountPaise: 5000,
        paidAt,
        paymentRef: 'UTR99887766',
        paymentMethod: 'upi',
      },
    });
  });

  it('sends reminder.sent with transactionId, contactName, template and sentAt', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['reminder.sent']);
    const due = await createDue(biz, 'Reminded Buyer');
    const remind = await biz.post(`/v1/transactions/${due.id}/remind`);
    expect(remind.status).toBe(200);
    expect(remind.body.data.sent).toBe(true);
    await dispatch();
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0] as ReceivedRequest;
    expect(verify(req, endpoint.secret)).toBe(true);
    expect(JSON.parse(req.body)).toStrictEqual({
      event: 'reminder.sent',
      timestamp: '2026-11-21T06:30:00Z',
      data: {
        transactionId: due.id,
        contactName: 'Reminded Buyer',
        template: remind.body.data.template,
        sentAt: START,
      },
    });
  });

  it('sends nothing for events the endpoint is not subscribed to, nor to other businesses', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.paid']);
    await endpointFor(other, ['transaction.created', 'transaction.paid']);
    const due = await createDue(biz);
    await dispatch();
    expect(receiver.requests).toHaveLength(0);
    expect(await deliveries(biz, endpoint.id)).toEqual([]);

    await biz.post(`/v1/transactions/${due.id}/mark-paid`);
    await dispatch();
    expect(receiver.requests.map((r) => r.headers['x-service-event'])).toEqual(['transaction.paid']);
  });

  it('fans one event out to every subscribed endpoint, each with its own signature', async () => {
    const biz = await h.newBusiness();
    const a = await endpointFor(biz, ['transaction.created'], '/a');
    const b = await endpointFor(biz, ['transaction.created', 'transaction.paid'], '/b');
    await createDue(biz);
    expect(await dispatch()).toBe(2);
    const byPath = new Map(receiver.requests.map((r) => [r.url, r]));
    expect(verify(byPath.get('/a') as ReceivedRequest, a.secret)).toBe(true);
    expect(verify(byPath.get('/b') as ReceivedRequest, b.secret)).toBe(true);
    expect(byPath.get('/a')?.body).toBe(byPath.get('/b')?.body);
    expect(byPath.get('/a')?.headers['x-service-event-id']).toBe(byPath.get('/b')?.headers['x-service-event-id']);
  });

  it('does not replay events from before the endpoint existed', async () => {
    const biz = await h.newBusiness();
    await createDue(biz);
    h.clock.advance(1000);
    const endpoint = await endpointFor(biz, ['transaction.created']);
    await dispatch();
    expect(receiver.requests).toHaveLength(0);
    expect(await deliveries(biz, endpoint.id)).toEqual([]);
  });

  it('fans out each event once, however often the dispatcher runs', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    await createDue(biz);
    await Promise.all([dispatch(), dispatch(), dispatch()]);
    await dispatch();
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveries(biz, endpoint.id)).toHaveLength(1);
  });
});

describe('retries', () => {
  it('retries after 1 min, 5 min, 30 min, 2 h and 6 h, then stops at 6 attempts', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond(() => 500);
    const start = h.clock.now().getTime();
    await createDue(biz);
    await dispatch();
    expect(receiver.requests).toHaveLength(1);

    const delays = [1, 5, 30, 120, 360].map((m) => m * MINUTE);
    let at = start;
    for (const [i, delay] of delays.entries()) {
      const [log] = await deliveries(biz, endpoint.id);
      expect(log.status).toBe('failed');
      expect(log.attempts).toBe(i + 1);
      expect(log.response_status).toBe(500);
      expect(log.error).toBe('HTTP 500');
      expect(log.next_retry_at).toBe(new Date(at + delay).toISOString());
      // one second early: nothing goes out
      h.clock.set(new Date(at + delay - 1000));
      expect(await dispatch()).toBe(0);
      h.clock.set(new Date(at + delay));
      expect(await dispatch()).toBe(1);
      expect(receiver.requests).toHaveLength(i + 2);
      at += delay;
    }
    const [log] = await deliveries(biz, endpoint.id);
    expect(log).toMatchObject({ status: 'failed', attempts: 6, next_retry_at: null, delivered_at: null });
    expect(log.attempt_log.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(log.attempt_log.map((a: { next_retry_at: string | null }) => a.next_retry_at)).toEqual([
      ...delays.map((_, i) => new Date(start + delays.slice(0, i + 1).reduce((s, d) => s + d, 0)).toISOString()),
      null,
    ]);
    h.clock.advance(24 * 60 * MINUTE);
    expect(await dispatch()).toBe(0);
    expect(receiver.requests).toHaveLength(6);
    // every retry is the same bytes under the same ids
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-event-id'])).size).toBe(1);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-delivery-id'])).size).toBe(1);
    const [listed] = (await biz.get('/v1/webhooks')).body.data;
    expect(listed.failure_count).toBe(6);
    expect(listed.active).toBe(true);
  });

  it('counts consecutive failures and resets them on a success', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond(() => 503);
    await createDue(biz);
    await dispatch();
    expect((await biz.get('/v1/webhooks')).body.data[0].failure_count).toBe(1);
    receiver.respond(() => 204);
    h.clock.advance(MINUTE);
    await dispatch();
    const [log] = await deliveries(biz, endpoint.id);
    expect(log).toMatchObject({ status: 'delivered', attempts: 2, response_status: 204, error: null });
    expect(log.delivered_at).toBe(h.clock.now().toISOString());
    expect((await biz.get('/v1/webhooks')).body.data[0].failure_count).toBe(0);
  });

  it('treats a redirect as a failure, without following it', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond((req) => (req.url === '/hook' ? { status: 302, body: '' } : 200));
    await createDue(biz);
    await dispatch();
    expect(receiver.requests).toHaveLength(1);
    const [log] = await deliveries(biz, endpoint.id);
    expect(log.status).toBe('failed');
    expect(log.response_status).toBe(302);
  });

  it('fails an attempt the receiver does not answer within WEBHOOK_TIMEOUT_MS, and plans a retry', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond('hang');
    await createDue(biz);
    const started = Date.now();
    await dispatch();
    expect(Date.now() - started).toBeLessThan(5000);
    const [log] = await deliveries(biz, endpoint.id);
    expect(log.status).toBe('failed');
    expect(log.response_status).toBeNull();
    expect(log.error).toMatch(/timed out/);
    expect(log.next_retry_at).toBe(new Date(h.clock.now().getTime() + MINUTE).toISOString());
  });

  it('disables an endpoint that has failed every attempt for 3 days; it gets nothing more', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond(() => 500);
    await createDue(biz, 'Day One');
    await dispatch();
    // keeps failing: a new event every day
    for (let day = 1; day <= 3; day++) {
      h.clock.advance(24 * 60 * MINUTE);
      await createDue(biz, `Day ${day + 1}`);
      await dispatch();
    }
    const [listed] = (await biz.get('/v1/webhooks')).body.data;
    expect(listed.active).toBe(false);
    const sent = receiver.requests.length;

    await createDue(biz, 'After');
    h.clock.advance(7 * 24 * 60 * MINUTE);
    await dispatch();
    expect(receiver.requests).toHaveLength(sent);
    const log = await deliveries(biz, endpoint.id);
    expect(log.every((d) => d.next_retry_at === null)).toBe(true);
    const redeliver = await biz.post(`/v1/webhooks/${endpoint.id}/deliveries/${log[0].id}/redeliver`);
    expect(redeliver.status).toBe(409);
  });

  it('keeps an endpoint active when a success interrupts the failures', async () => {
    const biz = await h.newBusiness();
    await endpointFor(biz, ['transaction.created']);
    receiver.respond(() => 500);
    await createDue(biz, 'First');
    await dispatch();
    h.clock.advance(2 * 24 * 60 * MINUTE);
    receiver.respond(() => 200);
    await createDue(biz, 'Second');
    await dispatch();
    receiver.respond(() => 500);
    h.clock.advance(2 * 24 * 60 * MINUTE);
    await createDue(biz, 'Third');
    await dispatch();
    const [listed] = (await biz.get('/v1/webhooks')).body.data;
    expect(listed.active).toBe(true);
    expect(listed.failure_count).toBeGreaterThan(0);
  });
});

describe('redeliver', () => {
  it('queues one immediate new attempt of a delivered delivery', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    await createDue(biz);
    await dispatch();
    const [first] = await deliveries(biz, endpoint.id);
    const res = await biz.post(`/v1/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { requeued: true } });
    const [queued] = await deliveries(biz, endpoint.id);
    expect(queued.status).toBe('pending');
    expect(await dispatch()).toBe(1);
    expect(await dispatch()).toBe(0);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.body).toBe(receiver.requests[0]?.body);
    expect(receiver.requests[1]?.headers['x-service-event-id']).toBe(
      receiver.requests[0]?.headers['x-service-event-id'],
    );
    expect(verify(receiver.requests[1] as ReceivedRequest, endpoint.secret)).toBe(true);
    const [after] = await deliveries(biz, endpoint.id);
    expect(after).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('gives an exhausted delivery one more attempt, without restarting the retries', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond(() => 500);
    await createDue(biz);
    await dispatch();
    for (const m of [1, 5, 30, 120, 360]) {
      h.clock.advance(m * MINUTE);
      await dispatch();
    }
    const [exhausted] = await deliveries(biz, endpoint.id);
    expect(exhausted.attempts).toBe(6);
    await biz.post(`/v1/webhooks/${endpoint.id}/deliveries/${exhausted.id}/redeliver`);
    await dispatch();
    const [after] = await deliveries(biz, endpoint.id);
    expect(after).toMatchObject({ status: 'failed', attempts: 7, next_retry_at: null });
    h.clock.advance(24 * 60 * MINUTE);
    expect(await dispatch()).toBe(0);
    expect(receiver.requests).toHaveLength(7);
  });
});

describe('delete', () => {
  it('stops queued deliveries and new events for a deleted endpoint', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    const keep = await endpointFor(biz, ['transaction.created'], '/keep');
    await createDue(biz, 'Queued');
    await h.services.webhookDispatcher.fanOut();
    expect((await biz.delete(`/v1/webhooks/${endpoint.id}`)).status).toBe(200);
    await h.services.webhookDispatcher.deliverDue();
    await createDue(biz, 'Later');
    await dispatch();
    expect(receiver.requests.map((r) => r.url)).toEqual(['/keep', '/keep']);
    expect(await deliveries(biz, keep.id)).toHaveLength(2);
  });

  it('stops the retries of a failing delivery', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond(() => 500);
    await createDue(biz);
    await dispatch();
    await biz.delete(`/v1/webhooks/${endpoint.id}`);
    h.clock.advance(10 * MINUTE);
    expect(await dispatch()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('POST /v1/webhooks/{id}/test', () => {
  it('sends a signed sample of the first subscribed event now and logs it', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created', 'transaction.paid']);
    const res = await biz.post(`/v1/webhooks/${endpoint.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { delivered: true, event: 'transaction.paid', status: 200 } });
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0] as ReceivedRequest;
    expect(verify(req, endpoint.secret)).toBe(true);
    expect(req.headers['x-service-event']).toBe('transaction.paid');
    const body = JSON.parse(req.body);
    expect(body.event).toBe('transaction.paid');
    expect(body.timestamp).toBe('2026-11-21T06:30:00Z');
    expect(Object.keys(body.data).sort()).toEqual(
      ['amountPaise', 'contactName', 'id', 'paidAt', 'paymentMethod', 'paymentRef'].sort(),
    );
    const [log] = await deliveries(biz, endpoint.id);
    expect(log).toMatchObject({
      event: 'transaction.paid',
      status: 'delivered',
      attempts: 1,
      response_status: 200,
      event_id: req.headers['x-service-event-id'],
      id: req.headers['x-service-delivery-id'],
    });
    expect((await biz.get('/v1/webhooks')).body.data[0].last_triggered_at).toBe(h.clock.now().toISOString());
  });

  it('reports a failed test (delivered: false), logs it and plans no retry', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    receiver.respond(() => 500);
    const res = await biz.post(`/v1/webhooks/${endpoint.id}/test`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { delivered: false, event: 'transaction.created', status: 500, error: 'HTTP 500' },
    });
    const [log] = await deliveries(biz, endpoint.id);
    expect(log).toMatchObject({ status: 'failed', attempts: 1, response_status: 500, next_retry_at: null });
    h.clock.advance(10 * MINUTE);
    expect(await dispatch()).toBe(0);
    // a sample does not count against the endpoint
    expect((await biz.get('/v1/webhooks')).body.data[0].failure_count).toBe(0);
  });

  it('can be redelivered like any logged delivery', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    await biz.post(`/v1/webhooks/${endpoint.id}/test`);
    const [log] = await deliveries(biz, endpoint.id);
    await biz.post(`/v1/webhooks/${endpoint.id}/deliveries/${log.id}/redeliver`);
    await dispatch();
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.body).toBe(receiver.requests[0]?.body);
  });

  it("answers 404 for another business's endpoint and rejects unknown body fields", async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const endpoint = await endpointFor(a, ['transaction.created']);
    expect((await b.post(`/v1/webhooks/${endpoint.id}/test`)).status).toBe(404);
    const bad = await a.post(`/v1/webhooks/${endpoint.id}/test`, { event: 'transaction.paid' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('event');
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('delivery log', () => {
  it('lists newest first and pages with limit and offset', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    for (let i = 0; i < 5; i++) {
      await createDue(biz, `Buyer ${i}`);
      h.clock.advance(1000);
    }
    await dispatch();
    const all = await deliveries(biz, endpoint.id);
    expect(all).toHaveLength(5);
    const created = all.map((d) => d.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const page = await biz.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=2&offset=1`);
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1, hasMore: true });
    expect(page.body.data.map((d: { id: string }) => d.id)).toEqual(all.slice(1, 3).map((d) => d.id));
  });
});

describe('the worker job', () => {
  it('wakes on a new event instead of waiting for its poll', async () => {
    const biz = await h.newBusiness();
    await endpointFor(biz, ['transaction.created']);
    const metrics = createMetrics();
    const workers = startWorkers(
      [
        webhookDispatcherJob(
          { dispatcher: h.services.webhookDispatcher, store: h.store, clock: h.clock, metrics },
          { idleMs: 60_000 },
        ),
      ],
      { logger: pino({ level: 'silent' }), metrics },
    );
    try {
      // let the job go idle first
      await new Promise((r) => setTimeout(r, 200));
      await createDue(biz);
      const [req] = await receiver.waitFor(1, 10_000);
      expect(req?.headers['x-service-event']).toBe('transaction.created');
    } finally {
      await workers.stop();
    }
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/webhook_deliveries_total\{outcome="delivered"\} 1/);
    expect(text).toMatch(/webhook_queue_lag_seconds \d/);
  });
});

describe('the dispatcher loop (run)', () => {
  it('delivers everything with at most `concurrency` attempts in flight and records each one', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    let inFlight = 0;
    let most = 0;
    receiver.respond(() => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => inFlight--, 30);
      return { status: 200, delayMs: 30 };
    });
    for (let i = 0; i < 12; i++) await createDue(biz, `Loop Buyer ${i}`);
    const outcomes: string[] = [];
    const handled = await h.services.webhookDispatcher.run(new AbortController().signal, {
      concurrency: 4,
      onOutcome: (o) => outcomes.push(o),
    });
    expect(handled).toBeGreaterThanOrEqual(24); // 12 events fanned out, 12 deliveries claimed
    expect(outcomes).toEqual(Array(12).fill('delivered'));
    expect(most).toBeLessThanOrEqual(4);
    expect(receiver.requests).toHaveLength(12);
    const log = await deliveries(biz, endpoint.id);
    expect(log).toHaveLength(12);
    for (const d of log) expect(d).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 });
    const leased = await h.store.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpoint.id)
      .where('lease_id', 'is not', null)
      .execute();
    expect(leased).toEqual([]);
  });

  it('sends deliveries it creates leased once, and one that existed already exactly once', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    await createDue(biz, 'Twice Buyer');
    await h.services.webhookDispatcher.fanOut();
    await createDue(biz, 'Once Buyer');
    // The first event is fanned out again (as after a fan-out whose commit was not seen): its
    // delivery exists, the second event's does not.
    await h.store.db
      .updateTable('events')
      .set({ dispatched_at: null })
      .where('business_id', '=', biz.business.id)
      .execute();
    const outcomes: string[] = [];
    await h.services.webhookDispatcher.run(new AbortController().signal, {
      concurrency: 8, // room for every event in one fan-out
      onOutcome: (o) => outcomes.push(o),
    });
    expect(outcomes).toEqual(['delivered', 'delivered']);
    expect(receiver.requests).toHaveLength(2);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-event-id'])).size).toBe(2);
    const rows = await h.store.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'lease_id'])
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows).toEqual([
      { status: 'delivered', attempts: 1, lease_id: null },
      { status: 'delivered', attempts: 1, lease_id: null },
    ]);
  });

  it('when stopped, finishes and records the attempts in flight and gives back the ones it had queued', async () => {
    const biz = await h.newBusiness();
    // Every event of a new due (contact.created, transaction.created) is one delivery.
    const endpoint = await endpointFor(biz, ['transaction.created', 'contact.created']);
    // The first answer comes at once, so the loop takes more work than it has free slots for
    // (the rest waits in its queue, leased); the others take a while.
    let answered = 0;
    receiver.respond(() => (answered++ === 0 ? 200 : { status: 200, delayMs: 300 }));
    for (let i = 0; i < 6; i++) await createDue(biz, `Stop Buyer ${i}`);
    const stop = new AbortController();
    const outcomes: string[] = [];
    const running = h.services.webhookDispatcher.run(stop.signal, {
      concurrency: 2,
      onOutcome: (o) => outcomes.push(o),
    });
    await receiver.waitFor(3, 5000);
    const queuedAtStop = await h.store.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpoint.id)
      .where('attempts', '=', 0)
      .where('lease_id', 'is not', null)
      .execute();
    stop.abort();
    await running;
    expect(outcomes).toEqual(['delivered', 'delivered', 'delivered']);
    expect(receiver.requests).toHaveLength(3);
    // 3 sent and recorded (2 of them in flight at the stop), at least 1 leased but still queued
    const sentIds = receiver.requests.map((r) => r.headers['x-service-delivery-id']);
    const queuedIds = queuedAtStop.map((r) => r.id).filter((id) => !sentIds.includes(id));
    expect(queuedIds.length).toBeGreaterThanOrEqual(1);
    const rows = await h.store.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status', 'attempts', 'lease_id', 'locked_until', 'next_attempt_at'])
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    const sent = rows.filter((r) => r.attempts === 1);
    const unsent = rows.filter((r) => r.attempts === 0);
    expect(sent).toHaveLength(3);
    for (const r of sent) expect(r).toMatchObject({ status: 'delivered', lease_id: null, next_attempt_at: null });
    // Given back, not left leased: due at once for the next worker, not after the lease runs out.
    expect(unsent.map((r) => r.id)).toEqual(expect.arrayContaining(queuedIds));
    for (const r of unsent)
      expect(r).toMatchObject({ status: 'pending', lease_id: null, locked_until: null, next_attempt_at: START });

    // The next run delivers the rest (events not fanned out yet included), each once.
    receiver.respond(() => 200);
    await h.services.webhookDispatcher.run(new AbortController().signal, { concurrency: 2 });
    expect(receiver.requests).toHaveLength(12);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-event-id'])).size).toBe(12);
  });
});

describe('SSRF protection (WEBHOOK_ALLOW_PRIVATE_NETWORKS off)', () => {
  let guarded: Harness;
  beforeAll(async () => {
    guarded = await startHarness({
      now: START,
      webhookSender: createHttpSender({ timeoutMs: 1500, allowPrivateNetworks: false, ca: receiver.ca }),
    });
  });
  afterAll(() => guarded?.close());
  afterEach(() => expect(receiver.requests).toHaveLength(0));

  it('refuses to deliver to a loopback address and logs why, without the address (PRODUCT part 16)', async () => {
    const biz = await guarded.newBusiness();
    const res = await biz.post('/v1/webhooks', { url: receiver.url, events: ['transaction.created'] });
    expect(res.status).toBe(201);
    await biz.post('/v1/transactions', { amount_paise: 100, due_date: '2026-12-01', contact_name: 'Blocked' });
    await guarded.services.webhookDispatcher.fanOut();
    await guarded.services.webhookDispatcher.deliverDue();
    const [log] = (await biz.get(`/v1/webhooks/${res.body.data.id}/deliveries`)).body.data;
    expect(log.status).toBe('failed');
    expect(log.response_status).toBeNull();
    expect(log.error).toBe('destination not allowed');
    expect(JSON.stringify(log)).not.toContain('127.0.0.1');
  });

  it('refuses the test operation to a name that resolves to loopback', async () => {
    const biz = await guarded.newBusiness();
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    const res = await biz.post('/v1/webhooks', { url, events: ['transaction.created'] });
    const test = await biz.post(`/v1/webhooks/${res.body.data.id}/test`);
    // why it failed, without the address it resolved to
    expect(test.body).toEqual({
      data: { delivered: false, event: 'transaction.created', error: 'destination not allowed' },
    });
  });
});
