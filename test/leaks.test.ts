import type dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { redactUrl } from '../src/lib/logger.js';
import { createHttpSender } from '../src/webhooks/sender.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/** PRODUCT part 16 and issue 16's "smaller leaks", each from outside. */

const METRICS_TOKEN = 'scrape-token-0123456789';
/** A resolver that sends every name to a private address, as a hostile DNS record would. */
const privateLookup = ((_hostname: string, _options: dns.LookupOptions, callback: (...args: unknown[]) => void) =>
  setImmediate(() => callback(null, [{ address: '10.0.0.5', family: 4 }]))) as unknown as typeof dns.lookup;

let h: Harness;
let biz: TestBusiness;
beforeAll(async () => {
  h = await startHarness({
    env: { METRICS_TOKEN },
    webhookSender: createHttpSender({ timeoutMs: 2000, allowPrivateNetworks: false, lookup: privateLookup }),
  });
  biz = await h.newBusiness();
});
afterAll(() => h.close());

describe('Cache-Control: no-store', () => {
  it('is on API answers, success and error alike', async () => {
    for (const res of [
      await biz.get('/v1/me'),
      await biz.get('/v1/transactions'),
      await biz.get('/v1/transactions/not-an-id'),
      await h.request('GET', '/v1/me'),
      await biz.get('/legacy/v1/summary'),
    ]) {
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('METRICS_TOKEN', () => {
  it('puts /metrics behind a bearer token', async () => {
    const none = await h.request('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    expect(none.text).not.toMatch(/http_request/);
    expect((await h.request('GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const ok = await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/# TYPE/);
  });
});

describe('webhook delivery errors', () => {
  it('say "destination not allowed" without the address the name resolved to', async () => {
    const hook = await biz.post('/v1/webhooks', { url: 'https://hooks.example.test/in', events: ['transaction.paid'] });
    expect(hook.status).toBe(201);
    const test = await biz.post(`/v1/webhooks/${hook.body.data.id}/test`);
    expect(test.status).toBe(200);
    expect(test.body.data.delivered).toBe(false);
    const log = await biz.get(`/v1/webhooks/${hook.body.data.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.text).toContain('destination not allowed');
    expect(log.text).not.toContain('10.0.0.5');
    expect(JSON.stringify(test.body)).not.toContain('10.0.0.5');
  });
});

describe('access logs', () => {
  it('keep the path only: no query string, no pay token', () => {
    expect(redactUrl('/channels/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=s3cret')).toBe(
      '/channels/whatsapp/webhook',
    );
    expect(redactUrl('/pay/tok_abc123/claim?x=1')).toBe('/pay/[redacted]/claim');
    expect(redactUrl('/v1/contacts?search=Ravi#frag')).toBe('/v1/contacts');
  });
});

describe('configuration', () => {
  it('takes TRUST_PROXY as a hop count or a list of addresses/CIDRs, never a blanket true', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
    ]);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(/hop count/);
  });

  it('refuses CHAT_CHANNEL=whatsapp without the app secret, the token or the phone number id', () => {
    const whatsapp = {
      CHAT_CHANNEL: 'whatsapp',
      WHATSAPP_APP_SECRET: 'app-secret',
      WHATSAPP_TOKEN: 'token',
      WHATSAPP_PHONE_NUMBER_ID: '1098765',
    };
    expect(loadConfig(whatsapp).chatChannel).toBe('whatsapp');
    for (const missing of ['WHATSAPP_APP_SECRET', 'WHATSAPP_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID']) {
      expect(() => loadConfig({ ...whatsapp, [missing]: '' }), missing).toThrow(new RegExp(missing));
    }
  });
});

describe('TRUST_PROXY at work', () => {
  let proxied: Harness;
  beforeAll(async () => {
    proxied = await startHarness({ env: { TRUST_PROXY: '1', AUTH_FAILURES_PER_MINUTE: '2' } });
  });
  afterAll(() => proxied.close());

  it('counts failed authentications per forwarded client address, one hop deep', async () => {
    const fail = (forwardedFor: string) =>
      proxied.request('GET', '/v1/me', { headers: { 'x-api-key': 'rk_live_wrong', 'x-forwarded-for': forwardedFor } });
    // A client cannot choose its address by prepending to the header: only the nearest hop counts.
    for (let i = 0; i < 2; i++) expect((await fail(`6.6.6.${i}, 203.0.113.1`)).status).toBe(401);
    expect((await fail('6.6.6.9, 203.0.113.1')).status).toBe(429);
    expect((await fail('203.0.113.2')).status).toBe(401);
  });
});
