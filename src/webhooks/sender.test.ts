import type dns from 'node:dns';
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HttpsReceiver, startHttpsReceiver } from '../../test/helpers/https-receiver.js';
import { createHttpSender, type WebhookSender } from './sender.js';

/** A resolver that answers every name with the given addresses (like a rebinding DNS server would). */
function fakeLookup(addresses: { address: string; family: number }[]): typeof dns.lookup {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const first = addresses[0] as { address: string; family: number };
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  }) as unknown as typeof dns.lookup;
}

let receiver: HttpsReceiver;
const senders: WebhookSender[] = [];
function sender(opts: Partial<Parameters<typeof createHttpSender>[0]> = {}) {
  const s = createHttpSender({ timeoutMs: 2000, allowPrivateNetworks: true, ca: receiver.ca, ...opts });
  senders.push(s);
  return s;
}
const request = (url: string) => ({
  url,
  body: '{"event":"transaction.paid","data":{"name":"Zoë ₹"}}',
  headers: { 'content-type': 'application/json', 'x-service-event': 'transaction.paid' },
});

beforeAll(async () => {
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await Promise.all(senders.map((s) => s.close()));
  await receiver.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => 200);
});

describe('createHttpSender', () => {
  it('POSTs the exact body bytes and headers, and reports a 2xx as delivered', async () => {
    const result = await sender().send(request(receiver.url));
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(result.durationMs).toBeGreaterThan(0);
    const [got] = receiver.requests;
    expect(got?.method).toBe('POST');
    expect(got?.body).toBe(request('').body);
    expect(got?.headers['x-service-event']).toBe('transaction.paid');
    expect(got?.headers['user-agent']).toBe('receivables-webhooks/1');
  });

  it('fails on a non-2xx answer, naming the status', async () => {
    receiver.respond(() => 500);
    expect(await sender().send(request(receiver.url))).toMatchObject({ ok: false, status: 500, error: 'HTTP 500' });
  });

  it('does not follow a redirect', async () => {
    receiver.respond(() => 301);
    const result = await sender().send(request(receiver.url));
    expect(result).toMatchObject({ ok: false, status: 301 });
    expect(result.error).toMatch(/redirect not followed/);
    expect(receiver.requests).toHaveLength(1);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    receiver.respond('hang');
    const started = Date.now();
    const result = await sender({ timeoutMs: 300 }).send(request(receiver.url));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({ ok: false, status: null, error: 'timed out after 300 ms' });
  });

  it('does not trust a certificate outside the trust store', async () => {
    const result = await sender({ ca: undefined as never }).send(request(receiver.url));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^TLS error: /);
    expect(receiver.requests).toHaveLength(0);
  });

  it('sends nothing to a plain http:// URL', async () => {
    const result = await sender().send(request(receiver.url.replace('https:', 'http:')));
    expect(result).toMatchObject({ ok: false, error: 'only https URLs are delivered' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a refused connection in a few words', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const result = await sender().send(request(`https://127.0.0.1:${port}/hook`));
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });
});

describe('SSRF protection (allowPrivateNetworks: false)', () => {
  it('refuses an IP-literal loopback URL before connecting', async () => {
    const result = await sender({ allowPrivateNetworks: false }).send(request(receiver.url));
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toBe('refused: 127.0.0.1 is a loopback address');
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses IPv6 and mapped loopback literals', async () => {
    for (const host of ['[::1]', '[::ffff:127.0.0.1]']) {
      const result = await sender({ allowPrivateNetworks: false }).send(request(`https://${host}:${receiver.port}/`));
      expect(result.error, host).toMatch(/^refused: .* loopback address/);
    }
  });

  it('refuses a name that resolves to loopback', async () => {
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    const result = await sender({ allowPrivateNetworks: false }).send(request(url));
    expect(result.error).toMatch(/^refused: localhost resolves to a loopback address/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a public-looking name whose DNS answers are all internal', async () => {
    const lookup = fakeLookup([
      { address: '10.0.0.5', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const url = `https://hooks.example.com:${receiver.port}/hook`;
    const result = await sender({ allowPrivateNetworks: false, lookup }).send(request(url));
    expect(result.error).toBe('refused: hooks.example.com resolves to a private address (10.0.0.5)');
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses cloud metadata (link-local) and CGNAT answers', async () => {
    for (const [address, reason] of [
      ['169.254.169.254', 'link-local'],
      ['100.64.1.1', 'CGNAT'],
    ]) {
      const lookup = fakeLookup([{ address: address as string, family: 4 }]);
      const result = await sender({ allowPrivateNetworks: false, lookup }).send(
        request(`https://metadata.example.com:${receiver.port}/`),
      );
      expect(result.error).toContain(`${reason} address`);
    }
  });

  it('delivers to the same receiver when private networks are allowed', async () => {
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    const result = await sender({ allowPrivateNetworks: true }).send(request(url));
    expect(result).toMatchObject({ ok: true, status: 200 });
  });
});
