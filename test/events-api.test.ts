import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness, TestBusiness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver } from './helpers/https-receiver.js';

/**
 * GET /v1/events: the business's events of the last 30 days, oldest first, each with `data`
 * exactly as its webhook deliveries carry it and its id in their webhook-id header.
 */

const START = '2026-11-21T06:30:00.000Z';
const DAY = 24 * 60 * 60 * 1000;

let receiver: HttpsReceiver;
let h: Harness;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({ now: START }));
});
afterAll(() => close?.());
beforeEach(() => {
  h.clock.set(START);
  receiver.requests.length = 0;
  receiver.respond(() => 200);
});

async function createDue(biz: TestBusiness, name: string, amount = 10000) {
  const res = await biz.post('/v1/transactions', { amount_paise: amount, due_date: '2026-12-01', contact_name: name });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; contact_id: string };
}

async function events(biz: TestBusiness, query = '') {
  const res = await biz.get(`/v1/events${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as {
    data: { id: string; type: string; created_at: string; data: any }[];
    limit: number;
    hasMore: boolean;
  };
}

describe('GET /v1/events', () => {
  it('lists the events oldest first, each with data exactly as delivered and its id in webhook-id', async () => {
    const biz = await h.newBusiness();
    const hook = await biz.post('/v1/webhooks', {
      url: receiver.url,
      events: ['transaction.created', 'contact.created'],
    });
    expect(hook.status).toBe(201);
    const due = await createDue(biz, 'Asha Stores');
    h.clock.advance(1000);
    await createDue(biz, 'Bala Traders');

    const page = await events(biz);
    expect(page.hasMore).toBe(false);
    expect(page.limit).toBe(50);
    expect(page.data.map((e) => e.type)).toEqual([
      'contact.created',
      'transaction.created',
      'contact.created',
      'transaction.created',
    ]);
    expect(page.data[1]).toMatchObject({
      type: 'transaction.created',
      created_at: START,
      data: { id: due.id, contactId: due.contact_id, contactName: 'Asha Stores', amountPaise: 10000 },
    });
    expect(page.data[2]?.created_at).toBe('2026-11-21T06:30:01.000Z');

    await h.services.webhookDispatcher.fanOut();
    await h.services.webhookDispatcher.deliverDue();
    expect(receiver.requests).toHaveLength(4);
    for (const req of receiver.requests) {
      const event = page.data.find((e) => e.id === req.headers['webhook-id']);
      expect(event, `an event with the id ${String(req.headers['webhook-id'])}`).toBeDefined();
      expect(req.headers['x-service-event-id']).toBe(event?.id);
      expect(JSON.parse(req.body).data).toStrictEqual(event?.data);
      expect(JSON.parse(req.body).event).toBe(event?.type);
    }
  });

  it('filters by type and since, pages with starting_after and limit, and reaches back 30 days only', async () => {
    const biz = await h.newBusiness();
    const old = await createDue(biz, 'Old Buyer');
    h.clock.advance(10 * DAY);
    const mid = await createDue(biz, 'Mid Buyer');
    h.clock.advance(21 * DAY);
    const recent = await createDue(biz, 'New Buyer');

    // 31 days after the first due: its events have left the window
    const all = await events(biz, '?type=transaction.created');
    expect(all.data.map((e) => e.data.id)).toEqual([mid.id, recent.id]);
    expect(
      (await events(biz, `?since=${encodeURIComponent('2020-01-01T00:00:00Z')}&type=transaction.created`)).data,
    ).toHaveLength(2);
    expect(all.data.every((e) => e.data.id !== old.id)).toBe(true);

    const since = new Date(Date.parse(START) + 20 * DAY).toISOString();
    expect((await events(biz, `?since=${since}&type=transaction.created`)).data.map((e) => e.data.id)).toEqual([
      recent.id,
    ]);

    const first = await events(biz, '?limit=1');
    expect(first.hasMore).toBe(true);
    expect(first.data).toHaveLength(1);
    const seen = [first.data[0]?.id];
    let after = first.data[0]?.id;
    for (let i = 0; i < 10; i++) {
      const next = await events(biz, `?limit=1&starting_after=${after}`);
      seen.push(...next.data.map((e) => e.id));
      if (!next.hasMore) break;
      after = next.data[0]?.id;
    }
    const whole = await events(biz);
    expect(seen).toEqual(whole.data.map((e) => e.id));
    expect(whole.data).toHaveLength(4);
  });

  it("answers 400 naming the field for bad input, and never shows another business's events", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    await createDue(other, 'Their Buyer');
    const theirs = (await events(other)).data[0]?.id as string;
    expect((await events(biz)).data).toEqual([]);

    for (const [query, field] of [
      ['?type=transaction.exploded', 'type'],
      ['?since=yesterday', 'since'],
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?starting_after=nope', 'starting_after'],
      [`?starting_after=${theirs}`, 'starting_after'],
      ['?offset=5', 'offset'],
    ] as const) {
      const res = await biz.get(`/v1/events${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.field, query).toBe(field);
      expect(res.body.error.message, query).toContain(field);
    }
  });
});
