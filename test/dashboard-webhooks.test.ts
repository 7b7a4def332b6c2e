import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInByLink } from './helpers/dashboard.js';
import type { Harness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver } from './helpers/https-receiver.js';

/** The dashboard's Developers page against a real HTTPS receiver: create, test, the log, send again. */

let receiver: HttpsReceiver;
let h: Harness;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({}));
});
afterAll(() => close?.());

describe('/dashboard/developers webhook endpoints', () => {
  it('creates an endpoint (secret shown once), sends a signed test event, logs it and sends it again', async () => {
    receiver.respond(() => 200);
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const created = await client.submit('/dashboard/developers', '/dashboard/developers/webhooks', {
      url: receiver.url,
    });
    expect(created.status, created.text).toBe(200);
    const secret = /Signing secret \(shown only once\):<code class="key">([0-9a-f]{64})<\/code>/.exec(
      created.text,
    )?.[1];
    expect(secret).toBeDefined();
    const endpoints = (await biz.get('/v1/webhooks')).body.data;
    expect(endpoints).toMatchObject([{ url: receiver.url, active: true }]);
    const id = endpoints[0].id as string;
    expect((await client.get('/dashboard/developers')).text).not.toContain(secret);

    const tested = await client.submit('/dashboard/developers', `/dashboard/developers/webhooks/${id}/test`);
    expect(tested.status).toBe(303);
    expect(tested.location).toBe('/dashboard/developers?ok=test');
    const [request] = await receiver.waitFor(1);
    expect(request?.headers['content-type']).toMatch(/application\/json/);
    const log = await client.get('/dashboard/developers?ok=test');
    expect(log.text).toContain('Test event queued.');
    expect(log.text).toMatch(/<code>transaction\.created<\/code> · delivered \(200\)/);

    const deliveryId = /\/deliveries\/([0-9a-f-]{36})\/redeliver/.exec(log.text)?.[1] as string;
    const again = await client.submit(
      '/dashboard/developers',
      `/dashboard/developers/webhooks/${id}/deliveries/${deliveryId}/redeliver`,
    );
    expect(again.status).toBe(303);
    expect(again.location).toBe('/dashboard/developers?ok=redelivered');
    const deliveries = await biz.get(`/v1/webhooks/${id}/deliveries`);
    expect(deliveries.body.data[0]).toMatchObject({ id: deliveryId, status: 'pending' });

    const removed = await client.submit('/dashboard/developers', `/dashboard/developers/webhooks/${id}/delete`);
    expect(removed.status).toBe(303);
    expect((await biz.get('/v1/webhooks')).body.data).toEqual([]);
  });
});

describe('/dashboard/developers: events, replay, rotation, turning back on', () => {
  it('lists recent events, replays the last 24 hours, rotates a secret (shown once) and turns a disabled endpoint back on', async () => {
    receiver.respond(() => 200);
    receiver.requests.length = 0;
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const hook = await biz.post('/v1/webhooks', { url: receiver.url, events: ['contact.created'] });
    const id = hook.body.data.id as string;
    expect((await biz.post('/v1/contacts', { name: 'Dash Buyer' })).status).toBe(201);
    await h.services.webhookDispatcher.fanOut();
    await h.services.webhookDispatcher.deliverDue();
    expect(receiver.requests).toHaveLength(1);

    const page = await client.get('/dashboard/developers');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Recent events');
    const [event] = (await biz.get('/v1/events')).body.data;
    expect(page.text).toContain(event.id);

    const replayed = await client.submit('/dashboard/developers', `/dashboard/developers/webhooks/${id}/replay`);
    expect(replayed.status).toBe(303);
    expect(replayed.location).toBe('/dashboard/developers?ok=replayed');
    await h.services.webhookDispatcher.deliverDue();
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.headers['webhook-id']).toBe(event.id);

    const rotated = await client.submit('/dashboard/developers', `/dashboard/developers/webhooks/${id}/rotate`);
    expect(rotated.status).toBe(200);
    const secret = /New signing secret, shown only once\.[^<]*<code class="key">([0-9a-f]{64})<\/code>/.exec(
      rotated.text,
    )?.[1];
    expect(secret).toBeDefined();
    expect(secret).not.toBe(hook.body.data.secret);
    expect((await client.get('/dashboard/developers')).text).not.toContain(secret);
    await biz.post(`/v1/webhooks/${id}/test`);
    expect(String(receiver.requests[2]?.headers['webhook-signature']).split(' ')).toHaveLength(2);

    await biz.patch(`/v1/webhooks/${id}`, { active: false });
    const off = await client.get('/dashboard/developers');
    expect(off.text).toContain('Turned off: turned off by the business');
    const on = await client.submit('/dashboard/developers', `/dashboard/developers/webhooks/${id}/enable`);
    expect(on.status).toBe(303);
    expect(on.location).toBe('/dashboard/developers?ok=enabled');
    expect((await biz.get('/v1/webhooks')).body.data[0]).toMatchObject({ active: true, disabled_reason: null });
  });

  it("refuses another business's endpoint (404) and a form without its CSRF token (403), changing nothing", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const hook = await other.post('/v1/webhooks', { url: receiver.url, events: ['contact.created'] });
    const id = hook.body.data.id as string;
    const client = await signInByLink(h, biz.business.id);
    for (const action of ['rotate', 'replay', 'enable']) {
      const res = await client.submit('/dashboard/developers', `/dashboard/developers/webhooks/${id}/${action}`);
      expect(res.status, action).toBe(404);
    }
    const own = await biz.post('/v1/webhooks', { url: receiver.url, events: ['contact.created'] });
    const forged = await client.request('POST', `/dashboard/developers/webhooks/${own.body.data.id}/rotate`, {});
    expect(forged.status).toBe(403);
    const test = await biz.post(`/v1/webhooks/${own.body.data.id}/test`);
    expect(test.body.data.delivered).toBe(true);
    expect(String(receiver.requests.at(-1)?.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('speaks Hindi to a Hindi business', async () => {
    const biz = await h.newBusiness({ language: 'hi' });
    await biz.post('/v1/webhooks', { url: receiver.url, events: ['contact.created'] });
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get('/dashboard/developers');
    for (const words of ['हाल के इवेंट', 'पिछले 24 घंटे के इवेंट फिर भेजें', 'नया साइनिंग सीक्रेट', 'पिछले 30 दिनों में कोई इवेंट नहीं।']) {
      expect(page.text).toContain(words);
    }
  });
});
