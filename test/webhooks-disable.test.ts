import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import type { Harness, TestBusiness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver } from './helpers/https-receiver.js';

/**
 * Failing endpoints: disabled after 3 days of nothing but failures (disabled_reason), the business
 * told over chat once; PATCH turns them back on and changes url and events. And the test send's
 * answer, which says why a delivery failed.
 */

const START = '2026-11-21T06:30:00.000Z';
const DAY = 24 * 60 * 60 * 1000;

let receiver: HttpsReceiver;
let h: Harness;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({ now: START, senderTimeoutMs: 1500 }));
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

async function endpointFor(biz: TestBusiness, events = ['contact.created']) {
  const res = await biz.post('/v1/webhooks', { url: receiver.url, events });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string; url: string };
}

async function newContact(biz: TestBusiness, name: string) {
  expect((await biz.post('/v1/contacts', { name })).status).toBe(201);
}

async function endpointOf(biz: TestBusiness, id: string) {
  return ((await biz.get('/v1/webhooks')).body.data as { id: string }[]).find((e) => e.id === id) as Record<
    string,
    unknown
  >;
}

function noticesTo(phone: string) {
  return (h.services.channel as LogChannel).messages.filter(
    (m) => m.to === phone && m.kind === 'template' && m.template === 'webhook_endpoint_disabled',
  );
}

/** Fails every attempt for 3 days: a new event each day. */
async function failForThreeDays(biz: TestBusiness) {
  receiver.respond(() => 500);
  await newContact(biz, 'Day Zero');
  await dispatch();
  for (let day = 1; day <= 3; day++) {
    h.clock.advance(DAY);
    await newContact(biz, `Day ${day}`);
    await dispatch();
  }
}

describe('an endpoint that fails for 3 days', () => {
  it('is disabled with a reason, and the business is told over chat once', async () => {
    const biz = await h.newBusiness({ language: 'hi' });
    const endpoint = await endpointFor(biz);
    await failForThreeDays(biz);
    const listed = await endpointOf(biz, endpoint.id);
    expect(listed.active).toBe(false);
    expect(listed.disabled_reason).toMatch(/failing every attempt since 2026-11-21T06:30:00.000Z/);

    const told = noticesTo(biz.business.phone);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ language: 'hi', parameters: [biz.business.name, receiver.url] });

    await newContact(biz, 'After');
    h.clock.advance(DAY);
    await dispatch();
    await h.services.webhookDispatcher.run(new AbortController().signal);
    expect(noticesTo(biz.business.phone)).toHaveLength(1);
  });

  it('tells the business on the next run when the channel failed the first time', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz);
    const channel = h.services.channel as LogChannel;
    const send = channel.send.bind(channel);
    channel.send = async () => {
      throw new Error('channel down');
    };
    try {
      await failForThreeDays(biz);
    } finally {
      channel.send = send;
    }
    expect((await endpointOf(biz, endpoint.id)).active).toBe(false);
    expect(noticesTo(biz.business.phone)).toHaveLength(0);
    await h.services.webhookDispatcher.run(new AbortController().signal);
    expect(noticesTo(biz.business.phone)).toHaveLength(1);
  });
});

describe('PATCH /v1/webhooks/{id}', () => {
  it('turns a disabled endpoint back on: failures start afresh, events flow, replay works again', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz);
    await failForThreeDays(biz);
    const replayWhileOff = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, { since: START });
    expect(replayWhileOff.status).toBe(409);

    const res = await biz.patch(`/v1/webhooks/${endpoint.id}`, { active: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: endpoint.id, active: true, failure_count: 0, disabled_reason: null });
    receiver.respond(() => 200);
    receiver.requests.length = 0;
    await newContact(biz, 'Back On');
    expect(await dispatch()).toBe(1);
    expect(JSON.parse(receiver.requests[0]?.body ?? '{}').data.name).toBe('Back On');
    const replay = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, { since: START });
    expect(replay.status).toBe(200);
    expect(replay.body.data.queued).toBe(5);
  });

  it('changes url and events; active false turns it off and cancels what was queued', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz);
    const moved = receiver.url.replace(/\/hook$/, '/moved');
    const res = await biz.patch(`/v1/webhooks/${endpoint.id}`, {
      url: moved,
      events: ['transaction.created', 'contact.created', 'contact.created'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      url: moved,
      events: ['transaction.created', 'contact.created'],
      active: true,
    });
    await newContact(biz, 'Moved Buyer');
    await dispatch();
    expect(receiver.requests.map((r) => r.url)).toEqual(['/moved']);

    await newContact(biz, 'Queued Buyer');
    await h.services.webhookDispatcher.fanOut();
    const off = await biz.patch(`/v1/webhooks/${endpoint.id}`, { active: false });
    expect(off.body.data).toMatchObject({ active: false, disabled_reason: 'turned off by the business' });
    expect(await h.services.webhookDispatcher.deliverDue()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    const [queued] = (await biz.get(`/v1/webhooks/${endpoint.id}/deliveries`)).body.data;
    expect(queued).toMatchObject({ status: 'failed', error: 'endpoint turned off', next_retry_at: null });
    // turned off by the business: nobody is told over chat
    expect(noticesTo(biz.business.phone)).toHaveLength(0);
  });

  it("answers 400 naming the field for bad input and 404 for another business's endpoint, changing nothing", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const endpoint = await endpointFor(biz);
    const before = await endpointOf(biz, endpoint.id);
    for (const [body, field] of [
      [{ url: 'http://plain.example.com/hook' }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2100)}` }, 'url'],
      [{ events: [] }, 'events'],
      [{ events: ['contact.vanished'] }, 'events'],
      [{ active: 'yes' }, 'active'],
      [{ active: true, colour: 'blue' }, 'colour'],
    ] as const) {
      const res = await biz.patch(`/v1/webhooks/${endpoint.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    expect((await biz.patch(`/v1/webhooks/${endpoint.id}`, {})).status).toBe(400);
    expect((await other.patch(`/v1/webhooks/${endpoint.id}`, { active: false })).status).toBe(404);
    expect((await biz.patch('/v1/webhooks/not-a-uuid', { active: false })).status).toBe(404);
    expect(await endpointOf(biz, endpoint.id)).toEqual(before);
  });
});

describe('POST /v1/webhooks/{id}/test', () => {
  it('answers delivered with the status, or why the delivery failed', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['transaction.paid']);
    const ok = await biz.post(`/v1/webhooks/${endpoint.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toStrictEqual({ data: { delivered: true, event: 'transaction.paid', status: 200 } });

    receiver.respond(() => 503);
    const refused = await biz.post(`/v1/webhooks/${endpoint.id}/test`, {});
    expect(refused.body).toStrictEqual({
      data: { delivered: false, event: 'transaction.paid', status: 503, error: 'HTTP 503' },
    });

    receiver.respond('hang');
    const silent = await biz.post(`/v1/webhooks/${endpoint.id}/test`);
    expect(silent.body).toStrictEqual({
      data: { delivered: false, event: 'transaction.paid', error: 'timed out after 1500 ms' },
    });
  });
});
