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
    expect(log.text).toMatch(/transaction\.created · delivered \(200\)/);

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
