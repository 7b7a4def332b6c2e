import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRequest, WebhookResult, WebhookSender } from '../src/webhooks/sender.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import type { ReceivedRequest } from './helpers/https-receiver.js';
import { serviceSignatureOk, verifiedByLibrary } from './helpers/standard-webhooks.js';

/**
 * A secret rotation or a replay in the middle of a delivery storm: the dispatcher runs with
 * attempts in flight while the API call is made (from inside an attempt, so it happens at a known
 * point of the storm). Nothing is lost, and every attempt is signed with the secrets in force
 * when it was sent.
 */

const START = '2026-11-21T06:30:00.000Z';
const EVENTS = 40;

let h: Harness;
const sent: WebhookRequest[] = [];
/** called inside each attempt with its 1-based number, before it answers */
let during: ((n: number) => Promise<void>) | undefined;

const sender: WebhookSender = {
  async send(req: WebhookRequest): Promise<WebhookResult> {
    const n = sent.push(req);
    await during?.(n);
    return { ok: true, status: 200, error: null, durationMs: 1 };
  },
  close: async () => {},
};

beforeAll(async () => {
  h = await startHarness({ now: START, webhookSender: sender });
});
afterAll(() => h?.close());

function asReceived(req: WebhookRequest): ReceivedRequest {
  return { method: 'POST', url: req.url, headers: req.headers, body: req.body, at: 0 };
}

async function storm(biz: TestBusiness) {
  const res = await biz.post('/v1/webhooks', { url: 'https://hooks.example.test/in', events: ['contact.created'] });
  expect(res.status).toBe(201);
  for (let i = 0; i < EVENTS; i++) {
    expect((await biz.post('/v1/contacts', { name: `Storm Buyer ${i}` })).status).toBe(201);
  }
  const events = (await biz.get('/v1/events?limit=200')).body.data as { id: string }[];
  expect(events).toHaveLength(EVENTS);
  return { endpoint: res.body.data as { id: string; secret: string }, eventIds: events.map((e) => e.id) };
}

describe('a delivery storm', () => {
  it('loses nothing across a secret rotation, and signs each attempt with the secrets in force when sent', async () => {
    sent.length = 0;
    const biz = await h.newBusiness();
    const { endpoint, eventIds } = await storm(biz);
    let fresh = '';
    let rotatedBefore = Number.POSITIVE_INFINITY;
    during = async (n) => {
      if (n !== 10) return;
      const res = await biz.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { expire_previous_in_hours: 1 });
      expect(res.status).toBe(200);
      fresh = res.body.data.secret;
      rotatedBefore = sent.length;
    };
    await h.services.webhookDispatcher.run(new AbortController().signal, { concurrency: 8 });
    during = undefined;

    expect(new Set(sent.map((r) => r.headers['webhook-id']))).toEqual(new Set(eventIds));
    const now = h.clock.now();
    sent.forEach((req, i) => {
      const received = asReceived(req);
      if (i < 9) {
        expect(String(req.headers['webhook-signature']).split(' '), `attempt ${i + 1}`).toHaveLength(1);
        expect(verifiedByLibrary(received, endpoint.secret, now)).toBe(true);
      }
      if (i >= rotatedBefore) {
        expect(verifiedByLibrary(received, fresh, now), `attempt ${i + 1}`).toBe(true);
        expect(verifiedByLibrary(received, endpoint.secret, now)).toBe(true);
        expect(serviceSignatureOk(received, endpoint.secret)).toBe(true);
      }
    });
    expect(rotatedBefore).toBeLessThan(EVENTS);
    const delivered = await h.store.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpoint.id)
      .where('status', '=', 'delivered')
      .executeTakeFirstOrThrow();
    expect(Number(delivered.n)).toBe(EVENTS);
  });

  it('loses nothing when a replay of the whole storm is queued in the middle of it', async () => {
    sent.length = 0;
    const biz = await h.newBusiness();
    const { endpoint, eventIds } = await storm(biz);
    let replayed = false;
    during = async (n) => {
      if (n !== 10) return;
      const res = await biz.post(`/v1/webhooks/${endpoint.id}/replay`, { since: START });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ queued: EVENTS, truncated: false });
      replayed = true;
    };
    await h.services.webhookDispatcher.run(new AbortController().signal, { concurrency: 8 });
    during = undefined;

    expect(replayed).toBe(true);
    // Every event went out; the ten sent before the replay was asked for (the tenth still in
    // flight) went out again after it: every attempt is answered 200, so only the replay resends.
    const before = new Set(sent.slice(0, 10).map((r) => r.headers['webhook-id']));
    const after = new Set(sent.slice(10).map((r) => r.headers['webhook-id']));
    expect(before.size).toBe(10);
    expect(new Set([...before, ...after])).toEqual(new Set(eventIds));
    for (const id of before) expect(after.has(id), `event ${id} sent again after the replay`).toBe(true);
    const left = await h.store.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'next_attempt_at'])
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(left).toHaveLength(EVENTS);
    expect(left.every((d) => d.status === 'delivered' && d.next_attempt_at === null)).toBe(true);
  });
});
