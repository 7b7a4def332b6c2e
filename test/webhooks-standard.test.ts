import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness, TestBusiness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver, ReceivedRequest } from './helpers/https-receiver.js';
import { serviceSignatureOk, verifiedByLibrary } from './helpers/standard-webhooks.js';

/**
 * Standard Webhooks headers on every delivery, checked with the official `standardwebhooks`
 * package as a receiver would use it (given `whsec_` + base64 of the secret's 32 bytes), beside
 * the unchanged X-Service-Signature.
 */

const START = '2026-11-21T06:30:00.000Z';

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

async function endpointFor(biz: TestBusiness, events: string[]) {
  const res = await biz.post('/v1/webhooks', { url: receiver.url, events });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string };
}

async function dispatch() {
  await h.services.webhookDispatcher.fanOut();
  return h.services.webhookDispatcher.deliverDue();
}

describe('Standard Webhooks headers', () => {
  it('signs every delivery so that the standardwebhooks library verifies it, beside X-Service-Signature', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created']);
    const created = await biz.post('/v1/contacts', { name: 'Kiran Stores' });
    expect(created.status).toBe(201);
    h.clock.advance(90_000);
    expect(await dispatch()).toBe(1);

    const [req] = receiver.requests as [ReceivedRequest];
    const event = (await biz.get('/v1/events')).body.data[0];
    expect(req.headers['webhook-id']).toBe(event.id);
    expect(req.headers['webhook-timestamp']).toBe(String(Date.parse(START) / 1000 + 90));
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifiedByLibrary(req, endpoint.secret, h.clock.now())).toBe(true);
    expect(serviceSignatureOk(req, endpoint.secret)).toBe(true);
    // the library refuses another secret, and a body changed on the way
    expect(verifiedByLibrary(req, 'ab'.repeat(32), h.clock.now())).toBe(false);
    expect(
      verifiedByLibrary({ ...req, body: req.body.replace('Kiran', 'Kiram') }, endpoint.secret, h.clock.now()),
    ).toBe(false);
  });

  it('signs a retry with its own sending time, under the same webhook-id', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created']);
    await biz.post('/v1/contacts', { name: 'Retry Traders' });
    receiver.respond(() => 500);
    await dispatch();
    h.clock.advance(60_000);
    receiver.respond(() => 200);
    expect(await h.services.webhookDispatcher.deliverDue()).toBe(1);
    const [first, second] = receiver.requests as [ReceivedRequest, ReceivedRequest];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(Number(second.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBe(60);
    expect(second.body).toBe(first.body);
    expect(verifiedByLibrary(second, endpoint.secret, h.clock.now())).toBe(true);
  });

  it('signs the test send the same way', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['reminder.sent']);
    const res = await biz.post(`/v1/webhooks/${endpoint.id}/test`);
    expect(res.status).toBe(200);
    const [req] = receiver.requests as [ReceivedRequest];
    expect(req.headers['webhook-id']).toBe(req.headers['x-service-event-id']);
    expect(verifiedByLibrary(req, endpoint.secret, h.clock.now())).toBe(true);
    expect(serviceSignatureOk(req, endpoint.secret)).toBe(true);
  });
});

describe('POST /v1/webhooks/{id}/rotate-secret', () => {
  const HOUR = 60 * 60 * 1000;

  async function deliverContact(biz: TestBusiness, name: string): Promise<ReceivedRequest> {
    receiver.requests.length = 0;
    expect((await biz.post('/v1/contacts', { name })).status).toBe(201);
    expect(await dispatch()).toBe(1);
    return receiver.requests[0] as ReceivedRequest;
  }

  it('answers the new secret once; both sign until the previous expires, X-Service-Signature keeps the previous', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created']);
    const res = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      data: {
        id: endpoint.id,
        secret: expect.stringMatching(/^[0-9a-f]{64}$/),
        previous_secret_expires_at: new Date(Date.parse(START) + 24 * HOUR).toISOString(),
      },
    });
    const fresh = res.body.data.secret as string;
    expect(fresh).not.toBe(endpoint.secret);
    expect(JSON.stringify((await biz.get('/v1/webhooks')).body)).not.toContain(fresh);

    h.clock.advance(23 * HOUR);
    const during = await deliverContact(biz, 'During Rotation');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiedByLibrary(during, fresh, h.clock.now())).toBe(true);
    expect(verifiedByLibrary(during, endpoint.secret, h.clock.now())).toBe(true);
    expect(serviceSignatureOk(during, endpoint.secret)).toBe(true);

    h.clock.advance(HOUR);
    const after = await deliverContact(biz, 'After Rotation');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiedByLibrary(after, fresh, h.clock.now())).toBe(true);
    expect(verifiedByLibrary(after, endpoint.secret, h.clock.now())).toBe(false);
    expect(serviceSignatureOk(after, fresh)).toBe(true);
  });

  it('with expire_previous_in_hours 0 the new secret alone signs at once; a second rotation drops the oldest', async () => {
    const biz = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created']);
    const first = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { expire_previous_in_hours: 72 });
    expect(first.body.data.previous_secret_expires_at).toBe(new Date(Date.parse(START) + 72 * HOUR).toISOString());
    const second = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { expire_previous_in_hours: 1 });
    const req = await deliverContact(biz, 'Twice Rotated');
    expect(verifiedByLibrary(req, second.body.data.secret, h.clock.now())).toBe(true);
    expect(verifiedByLibrary(req, first.body.data.secret, h.clock.now())).toBe(true);
    expect(verifiedByLibrary(req, endpoint.secret, h.clock.now())).toBe(false);

    const now = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { expire_previous_in_hours: 0 });
    expect(now.status).toBe(200);
    expect(now.body.data.previous_secret_expires_at).toBeNull();
    const only = await deliverContact(biz, 'Rotated Now');
    expect(verifiedByLibrary(only, now.body.data.secret, h.clock.now())).toBe(true);
    expect(verifiedByLibrary(only, second.body.data.secret, h.clock.now())).toBe(false);
    expect(serviceSignatureOk(only, now.body.data.secret)).toBe(true);
  });

  it("answers 400 naming the field for bad input and 404 for another business's endpoint, changing nothing", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const endpoint = await endpointFor(biz, ['contact.created']);
    for (const body of [
      { expire_previous_in_hours: 73 },
      { expire_previous_in_hours: -1 },
      { expire_previous_in_hours: 1.5 },
      { expire_previous_in_hours: 'soon' },
      { expire_previous_in_hours: null },
    ]) {
      const res = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field).toBe('expire_previous_in_hours');
    }
    const unknown = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { expire_now: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe('expire_now');
    expect((await other.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, {})).status).toBe(404);
    expect((await biz.post('/v1/webhooks/not-a-uuid/rotate-secret', {})).status).toBe(404);
    // no body at all is {}: the default overlap
    const req = await deliverContact(biz, 'Not Rotated');
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiedByLibrary(req, endpoint.secret, h.clock.now())).toBe(true);
    const absent = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`);
    expect(absent.status).toBe(200);
    expect(absent.body.data.previous_secret_expires_at).not.toBeNull();
  });
});
