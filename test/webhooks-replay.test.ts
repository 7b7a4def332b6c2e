import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordEvents } from '../src/outbox/events.js';
import type { Harness, TestBusiness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver, ReceivedRequest } from './helpers/https-receiver.js';

/** POST /v1/webhooks/{id}/replay: the endpoint's subscribed events of a window, queued again. */

const START = '2026-11-21T06:30:00.000Z';
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

let receiver: HttpsReceiver;
let h: Harness;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({ now: START }));
});
afterAll(() => close?.());
beforeEach(async () => {
  receiver.requests.length = 0;
  receiver.respond(() => 200);
  h.clock.set(START);
  await h.store.db.updateTable('webhook_deliveries').set({ next_attempt_at: null }).execute();
  await h.store.db.updateTable('events').set({ dispatched_at: START }).where('dispatched_at', 'is', null).execute();
});

async function dispatch() {
  await h.services.webhookDispatcher.fanOut();
  return h.services.webhookDispatcher.deliverDue();
}

async function endpointFor(biz: TestBusiness, events: string[]) {
  const res = await biz.post('/v1/webhooks', { url: receiver.url, events });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string };
}

async function createDue(biz: TestBusiness, name: string) {
  const res = await biz.post('/v1/transactions', { amount_paise: 5000, due_date: '2026-12-01', contact_name: name });
  expect(res.status).toBe(201);
}

function ids(requests: ReceivedRequest[]) {
  return requests.map((r) => String(r.headers['webhook-id']));
}

describe('POST /v1/webhooks/{id}/replay', () => {
  it("queues the window's subscribed events again, under their original ids and bodies", async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.created']);
    await createDue(biz, 'First Buyer');
    h.clock.advance(HOUR);
    await createDue(biz, 'Second Buyer');
    h.clock.advance(HOUR);
    await createDue(biz, 'Third Buyer');
    expect(await dispatch()).toBe(3);
    const original = [...receiver.requests];
    receiver.requests.length = 0;

    const res = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, { since: START });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({ data: { queued: 3, truncated: false } });
    expect(await dispatch()).toBe(3);
    // sent concurrently: compared in the order of their ids
    const byId = (list: ReceivedRequest[]) =>
      [...list].sort((a, b) => String(a.headers['webhook-id']).localeCompare(String(b.headers['webhook-id'])));
    expect(ids(byId(receiver.requests))).toEqual(ids(byId(original)));
    expect(byId(receiver.requests).map((r) => r.body)).toEqual(byId(original).map((r) => r.body));
    const log = (await biz.get(`/v1/webhooks/${endpoint.id}/deliveries`)).body.data;
    expect(log.map((d: { attempts: number; status: string }) => [d.attempts, d.status])).toEqual([
      [2, 'delivered'],
      [2, 'delivered'],
      [2, 'delivered'],
    ]);

    // a window: [since, until)
    receiver.requests.length = 0;
    const window = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, {
      since: new Date(Date.parse(START) + HOUR).toISOString(),
      until: new Date(Date.parse(START) + 2 * HOUR).toISOString(),
    });
    expect(window.body.data).toEqual({ queued: 1, truncated: false });
    await dispatch();
    const second = original.find((r) => JSON.parse(r.body).data.contactName === 'Second Buyer') as ReceivedRequest;
    expect(ids(receiver.requests)).toEqual(ids([second]));
  });

  it('takes only subscribed events (of `types`, if given), within the 30 days events are kept', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created', 'transaction.created']);
    await createDue(biz, 'Old Buyer');
    h.clock.advance(20 * DAY);
    await createDue(biz, 'Newer Buyer');
    h.clock.advance(11 * DAY);
    await biz.post(`/v1/transactions`, { amount_paise: 100, due_date: '2026-12-31', contact_name: 'Newer Buyer' });
    await dispatch();
    receiver.requests.length = 0;

    const onlyDues = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, {
      since: '2026-01-01T00:00:00Z',
      types: ['transaction.created', 'transaction.paid'],
    });
    // the first due (31 days ago) is outside the 30 days; transaction.paid is not subscribed
    expect(onlyDues.body.data).toEqual({ queued: 2, truncated: false });
    await dispatch();
    const bodies = receiver.requests.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.event)).toEqual(['transaction.created', 'transaction.created']);
    expect(bodies.map((b) => b.data.contactName)).toEqual(['Newer Buyer', 'Newer Buyer']);

    const notSubscribed = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, {
      since: '2026-01-01T00:00:00Z',
      types: ['reminder.sent'],
    });
    expect(notSubscribed.body.data).toEqual({ queued: 0, truncated: false });
  });

  it('queues at most 10,000 events and says the window held more', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created']);
    const at = h.clock.now();
    await h.store.db.transaction().execute((trx) =>
      recordEvents(
        trx,
        Array.from({ length: 10_001 }, (_, i) => ({
          businessId: biz.business.id,
          type: 'contact.created' as const,
          data: { id: `c${i}`, name: `Buyer ${i}`, phone: null, createdAt: at.toISOString() },
          at,
        })),
      ),
    );
    const res = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, { since: START });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ queued: 10_000, truncated: true });
    const queued = await h.store.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(Number(queued.n)).toBe(10_000);
    // not sent here: this endpoint's queue is left behind (the next test's beforeEach empties it)
    await h.store.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: null })
      .where('endpoint_id', '=', endpoint.id)
      .execute();
  });

  it("answers 400 naming the field for bad input, 404 for another business's endpoint, queuing nothing", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created']);
    await biz.post('/v1/contacts', { name: 'Quiet Buyer' });
    await dispatch();
    receiver.requests.length = 0;
    const url = `/v1/webhooks/${endpoint.id}/replay`;
    for (const [body, field] of [
      [{}, 'since'],
      [{ since: 'last week' }, 'since'],
      [{ since: START, until: 'later' }, 'until'],
      [{ since: START, until: START }, 'until'],
      [{ since: START, until: '2026-11-20T00:00:00Z' }, 'until'],
      [{ since: START, types: [] }, 'types'],
      [{ since: START, types: ['contact.exploded'] }, 'types'],
      [{ since: START, types: 'contact.created' }, 'types'],
      [{ since: START, everything: true }, 'everything'],
    ] as const) {
      const res = await biz.post(url, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    expect((await biz.post(url)).status).toBe(400);
    expect((await other.post(url, { since: START })).status).toBe(404);
    expect((await biz.post('/v1/webhooks/not-a-uuid/replay', { since: START })).status).toBe(404);
    expect(await dispatch()).toBe(0);
    expect(receiver.requests).toEqual([]);
  });
});
