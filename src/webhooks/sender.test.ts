import { createHmac } from 'node:crypto';
import type dns from 'node:dns';
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type HttpsReceiver, startHttpsReceiver } from '../../test/helpers/https-receiver.js';
import { createHttpSender, type HttpSenderOptions, type WebhookSender } from './sender.js';

let receiver: HttpsReceiver;
/** a plain TCP server that counts connections, to prove a refused target is never connected to */
let tcp: net.Server;
let tcpConnections = 0;
let tcpPort: number;
const senders: WebhookSender[] = [];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  tcp = net.createServer((socket) => {
    tcpConnections += 1;
    socket.destroy();
  });
  tcp.listen(0, '127.0.0.1');
  await once(tcp, 'listening');
  tcpPort = (tcp.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await receiver.close();
  await new Promise((resolve) => tcp.close(resolve));
});

beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => 200);
  tcpConnections = 0;
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((sender) => sender.close()));
});

function sender(opts: Partial<HttpSenderOptions> = {}): WebhookSender {
  const created = createHttpSender({ timeoutMs: 2_000, allowPrivateNetworks: true, ca: receiver.ca, ...opts });
  senders.push(created);
  return created;
}

/** A resolver that answers `addresses` for every name, asynchronously like the real one. */
function fakeLookup(addresses: string[], calls: { hostname: string; options: dns.LookupOptions }[] = []) {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    calls.push({ hostname, options });
    const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
    setImmediate(() => callback(null, entries));
  }) as unknown as typeof dns.lookup;
}

const post = { body: '{"event":"test"}', headers: { 'content-type': 'application/json' } };

describe('createHttpSender delivering to an HTTPS receiver', () => {
  it('reports a 2xx as delivered, with its status', async () => {
    receiver.respond(() => 204);
    const result = await sender().send({ url: receiver.url, ...post });
    expect(result).toMatchObject({ ok: true, status: 204, error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
  });

  it('sends the body bytes and headers exactly as given, by POST', async () => {
    const body = '{"event":"contact.created","data":{"name":"Zoë ₹ 😀","note":"a\\"b"}}';
    const signature = createHmac('sha256', 'k'.repeat(64)).update(body).digest('hex');
    await sender().send({
      url: `${receiver.url}?x=1`,
      body,
      headers: { 'content-type': 'application/json', 'X-Service-Signature': signature },
    });
    const [received] = await receiver.waitFor(1);
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/hook?x=1');
    expect(received?.body).toBe(body);
    expect(received?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(received?.headers['x-service-signature']).toBe(signature);
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['user-agent']).toBe('receivables-webhooks/1');
  });

  it('fails a non-2xx answer, reading past its body', async () => {
    receiver.respond(() => ({ status: 500, body: 'x'.repeat(200_000) }));
    const result = await sender().send({ url: receiver.url, ...post });
    expect(result).toMatchObject({ ok: false, status: 500, error: 'HTTP 500' });
  });

  it('does not follow a redirect', async () => {
    receiver.respond((req) => (req.url === '/hook' ? 302 : 200));
    const result = await sender().send({ url: receiver.url, ...post });
    expect(result).toMatchObject({ ok: false, status: 302, error: 'redirect not followed (HTTP 302)' });
    expect(receiver.requests.map((req) => req.url)).toEqual(['/hook']);
  });

  it('reuses the connection after reading a small body, not after cutting a large one short', async () => {
    const calls: { hostname: string; options: dns.LookupOptions }[] = [];
    // One connection per origin: with more, undici's pool opens a second one for a request sent
    // right after the previous response ended, before it has marked the first one free again.
    const one = sender({ lookup: fakeLookup(['127.0.0.1'], calls), connections: 1 });
    const url = `https://localhost:${receiver.port}/hook`;
    receiver.respond(() => ({ status: 500, body: 'small' }));
    expect((await one.send({ url, ...post })).error).toBe('HTTP 500');
    expect((await one.send({ url, ...post })).error).toBe('HTTP 500');
    expect(calls).toHaveLength(1); // one connection: the name was resolved once
    receiver.respond(() => ({ status: 200, body: 'x'.repeat(1_000_000) }));
    expect((await one.send({ url, ...post })).ok).toBe(true);
    expect((await one.send({ url, ...post })).ok).toBe(true);
    expect(calls).toHaveLength(2); // the first large body closed the connection
    expect(receiver.requests).toHaveLength(4);
  });

  it('gives up on a receiver that never answers after timeoutMs', async () => {
    receiver.respond('hang');
    const result = await sender({ timeoutMs: 300 }).send({ url: receiver.url, ...post });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('counts reading the body in the timeout, keeping the status that came', async () => {
    receiver.respond(() => ({ status: 200, body: 'late', bodyDelayMs: 2_000 }));
    const result = await sender({ timeoutMs: 300 }).send({ url: receiver.url, ...post });
    // the body would have come after 2 s: the 300 ms timeout cut it, keeping the status
    expect(result).toMatchObject({ ok: false, status: 200, error: 'timed out after 300 ms' });
  });

  it('returns "aborted" when the caller aborts', async () => {
    receiver.respond('hang');
    const controller = new AbortController();
    // aborted once the receiver holds the request (the sender's own timeout is 2 s)
    void receiver.waitFor(1).then(() => controller.abort());
    const result = await sender().send({ url: receiver.url, ...post }, controller.signal);
    expect(result).toMatchObject({ ok: false, status: null, error: 'aborted' });
  });

  it('times out an attempt still waiting for a connection, and never sends it afterwards', async () => {
    receiver.respond('hang');
    const one = sender({ timeoutMs: 300, connections: 1 });
    // the second waits behind the first (one connection, no pipelining) until both time out
    const results = await Promise.all([
      one.send({ url: receiver.url, ...post }),
      one.send({ url: receiver.url, ...post }),
    ]);
    for (const result of results) expect(result).toMatchObject({ ok: false, error: 'timed out after 300 ms' });
    // The connection freed by the first timeout must not carry the second one late: a third
    // request through the same single connection queues behind anything still pending, so once
    // it has arrived, the second would have arrived before it.
    receiver.respond(() => 200);
    expect((await one.send({ url: receiver.url, ...post, body: '{"event":"third"}' })).ok).toBe(true);
    expect(receiver.requests.map((r) => r.body)).toEqual([post.body, '{"event":"third"}']);
  });

  it('refuses a certificate from an unknown CA', async () => {
    const result = await sender({ ca: undefined }).send({ url: receiver.url, ...post });
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/^TLS error: [A-Z_]+$/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a closed port as connection refused', async () => {
    const probe = net.createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const result = await sender().send({ url: `https://127.0.0.1:${port}/hook`, ...post });
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });

  it('reports a failed DNS lookup', async () => {
    const lookup = ((_host: string, _opts: unknown, callback: (err: Error) => void) => {
      setImmediate(() =>
        callback(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' })),
      );
    }) as unknown as typeof dns.lookup;
    const result = await sender({ lookup }).send({ url: 'https://nowhere.example/hook', ...post });
    expect(result).toMatchObject({ ok: false, status: null, error: 'DNS lookup failed: ENOTFOUND' });
  });

  it('sends nothing to a URL that is not https', async () => {
    for (const url of [`http://127.0.0.1:${tcpPort}/hook`, 'ftp://example.com/', 'not a url']) {
      const result = await sender().send({ url, ...post });
      expect(result.ok).toBe(false);
      expect(result.status).toBeNull();
    }
    expect((await sender().send({ url: `http://127.0.0.1:${tcpPort}/hook`, ...post })).error).toBe(
      'only https URLs are delivered',
    );
    expect(tcpConnections).toBe(0);
  });
});

describe('createHttpSender guarding against private targets', () => {
  const guarded = (opts: Partial<HttpSenderOptions> = {}) => sender({ allowPrivateNetworks: false, ...opts });

  it('refuses an IP literal on the loopback network without connecting', async () => {
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '0x7f000001', '2130706433', '127.1']) {
      const result = await guarded().send({ url: `https://${host}:${tcpPort}/hook`, ...post });
      expect(result.ok, host).toBe(false);
      expect(result.status).toBeNull();
      expect(result.error).toBe('destination not allowed');
      expect(result.detail).toMatch(/^refused: \S+ is a loopback address$/);
    }
    expect(tcpConnections).toBe(0);
  });

  it('refuses the real receiver, which then gets no request', async () => {
    const result = await guarded().send({ url: receiver.url, ...post });
    expect(result).toMatchObject({
      ok: false,
      status: null,
      error: 'destination not allowed',
      detail: 'refused: 127.0.0.1 is a loopback address',
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a name resolving to a private address, asking the resolver at connect time', async () => {
    const calls: { hostname: string; options: dns.LookupOptions }[] = [];
    const result = await guarded({ lookup: fakeLookup(['127.0.0.1'], calls) }).send({
      url: `https://hooks.example:${tcpPort}/hook`,
      ...post,
    });
    expect(result).toMatchObject({
      ok: false,
      status: null,
      error: 'destination not allowed',
      detail: 'refused: hooks.example resolves to a loopback address (127.0.0.1)',
    });
    expect(calls).toEqual([{ hostname: 'hooks.example', options: expect.objectContaining({ all: true }) }]);
    expect(tcpConnections).toBe(0);
  });

  it('tells the server log the refused address, while the result says only "destination not allowed"', async () => {
    const refused: string[] = [];
    const result = await guarded({ lookup: fakeLookup(['10.0.0.5']), onRefused: (d) => refused.push(d) }).send({
      url: `https://hooks.example:${tcpPort}/hook`,
      ...post,
    });
    expect(result.error).toBe('destination not allowed');
    expect(refused).toEqual(['refused: hooks.example resolves to a private address (10.0.0.5)']);
  });

  it('refuses a name all of whose addresses are blocked', async () => {
    const result = await guarded({ lookup: fakeLookup(['10.0.0.5', '127.0.0.1', 'fd00::1']) }).send({
      url: `https://hooks.example:${tcpPort}/hook`,
      ...post,
    });
    expect(result.error).toBe('destination not allowed');
    expect(result.detail).toBe('refused: hooks.example resolves to a private address (10.0.0.5)');
    expect(tcpConnections).toBe(0);
  });

  it('checks every new connection: a name that turns private later is refused then', async () => {
    let answer = '127.0.0.1';
    const lookup = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) =>
      fakeLookup([answer])(hostname, options, callback as never)) as unknown as typeof dns.lookup;
    const open = sender({ lookup });
    const url = `https://localhost:${receiver.port}/hook`;
    expect((await open.send({ url, ...post })).ok).toBe(true);
    answer = '169.254.169.254';
    const strict = guarded({ lookup });
    expect(await strict.send({ url, ...post })).toMatchObject({
      error: 'destination not allowed',
      detail: 'refused: localhost resolves to a link-local address (169.254.169.254)',
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it('delivers to the same targets when private networks are allowed', async () => {
    expect(await sender().send({ url: receiver.url, ...post })).toMatchObject({ ok: true, status: 200 });
    const viaName = await sender({ lookup: fakeLookup(['127.0.0.1']) }).send({
      url: `https://localhost:${receiver.port}/hook`,
      ...post,
    });
    expect(viaName).toMatchObject({ ok: true, status: 200, error: null });
    expect(receiver.requests).toHaveLength(2);
  });

  it('checks the address actually connected to, even when the resolver let it through', async () => {
    // Simulate a resolver check that lets 127.0.0.1 through: only the check on the connected
    // socket is left to catch it.
    vi.resetModules();
    const verdicts = ['loopback address'];
    vi.doMock('./network-guard.js', () => ({ blockedReason: () => verdicts.pop() ?? null }));
    verdicts.push(null as never);
    try {
      const { createHttpSender: createLeaky } = await import('./sender.js');
      const leaky = createLeaky({
        timeoutMs: 2_000,
        allowPrivateNetworks: false,
        ca: receiver.ca,
        lookup: fakeLookup(['127.0.0.1']),
      });
      senders.push(leaky);
      const result = await leaky.send({ url: `https://localhost:${receiver.port}/hook`, ...post });
      expect(result).toMatchObject({
        ok: false,
        status: null,
        error: 'destination not allowed',
        detail: 'refused: localhost connected to a loopback address (127.0.0.1)',
      });
      expect(verdicts).toEqual([]);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      vi.doUnmock('./network-guard.js');
      vi.resetModules();
    }
  });
});
