import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeLink {
  id: string;
  amount: number;
  currency: string;
  reference_id: string;
  description: string;
  customer: { name?: string; contact?: string };
  callback_url: string;
  callback_method: string;
  short_url: string;
  status: 'created' | 'cancelled' | 'paid';
}

export interface FakeRazorpay {
  /** http://127.0.0.1:<port>: RAZORPAY_API_BASE */
  base: string;
  keyId: string;
  keySecret: string;
  webhookSecret: string;
  links: FakeLink[];
  /** every API request, in order: method, path, authorization header, parsed body */
  calls: { method: string; path: string; authorization: string | undefined; body: unknown }[];
  /** how the API answers from now on: 'ok', a status to fail with, or 'hang' (never answers) */
  mode: 'ok' | number | 'hang';
  /** a signed payment_link.paid webhook for a link, as Razorpay sends it */
  paidWebhook(
    link: Pick<FakeLink, 'id' | 'reference_id' | 'amount'>,
    payment: { id: string; amount?: number; method?: string },
  ): { body: string; signature: string };
  /** posts a webhook body with its signature to the app over real HTTP */
  deliver(
    appUrl: string,
    webhook: { body: string; signature?: string | undefined },
  ): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/**
 * A stand-in for Razorpay over real HTTP: `POST /v1/payment_links` and `POST
 * /v1/payment_links/{id}/cancel` as its API reference documents them (basic auth key id:secret,
 * amount in paise, the link entity back), a checkout page at each short_url, and signed
 * `payment_link.paid` webhooks (X-Razorpay-Signature: hex HMAC-SHA256 of the body).
 */
export async function startFakeRazorpay(): Promise<FakeRazorpay> {
  const links: FakeLink[] = [];
  const calls: FakeRazorpay['calls'] = [];
  const open = new Set<ServerResponse>();
  const keyId = 'rzp_test_fakekey';
  const keySecret = 'fake-key-secret-never-logged';
  const expectedAuth = `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`;
  let base = '';

  const fake: FakeRazorpay = {
    base: '',
    keyId,
    keySecret,
    webhookSecret: 'fake-webhook-secret',
    links,
    calls,
    mode: 'ok',
    paidWebhook(link, payment) {
      const amount = payment.amount ?? link.amount;
      // Razorpay has the link paid by the time it tells us.
      const own = links.find((l) => l.id === link.id);
      if (own) own.status = 'paid';
      const body = JSON.stringify({
        entity: 'event',
        account_id: 'acc_fake',
        event: 'payment_link.paid',
        contains: ['payment_link', 'order', 'payment'],
        payload: {
          payment_link: {
            entity: {
              id: link.id,
              amount: link.amount,
              amount_paid: amount,
              currency: 'INR',
              reference_id: link.reference_id,
              status: 'paid',
            },
          },
          payment: {
            entity: {
              id: payment.id,
              entity: 'payment',
              amount,
              currency: 'INR',
              status: 'captured',
              method: payment.method ?? 'upi',
            },
          },
        },
        created_at: 1_764_000_000,
      });
      return { body, signature: createHmac('sha256', fake.webhookSecret).update(body).digest('hex') };
    },
    async deliver(appUrl, webhook) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (webhook.signature !== undefined) headers['x-razorpay-signature'] = webhook.signature;
      const res = await fetch(`${appUrl}/channels/razorpay/webhook`, {
        method: 'POST',
        headers,
        body: webhook.body,
        signal: AbortSignal.timeout(5000),
      });
      return { status: res.status, text: await res.text() };
    },
    async close() {
      for (const res of open) res.destroy();
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && path.startsWith('/i/')) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><title>Razorpay test checkout</title><h1 id="checkout">Checkout ${path.slice(3)}</h1>`);
        return;
      }
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      calls.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
      if (fake.mode === 'hang') return;
      if (typeof fake.mode === 'number') {
        send(res, fake.mode, { error: { code: 'SERVER_ERROR', description: 'The server is down' } });
        return;
      }
      if (req.headers.authorization !== expectedAuth) {
        send(res, 401, { error: { code: 'BAD_REQUEST_ERROR', description: 'Authentication failed' } });
        return;
      }
      const cancel = /^\/v1\/payment_links\/([^/]+)\/cancel$/.exec(path);
      if (req.method === 'POST' && path === '/v1/payment_links') {
        const input = body as Omit<FakeLink, 'id' | 'short_url' | 'status'>;
        if (!Number.isInteger(input.amount) || input.amount < 100) {
          send(res, 400, { error: { code: 'BAD_REQUEST_ERROR', description: 'The amount must be atleast INR 1.00' } });
          return;
        }
        const id = `plink_${String(links.length + 1).padStart(10, '0')}`;
        const link: FakeLink = { ...input, id, short_url: `${base}/i/${id}`, status: 'created' };
        links.push(link);
        send(res, 200, { ...link, accept_partial: false, amount_paid: 0, created_at: 1_764_000_000 });
      } else if (req.method === 'POST' && cancel) {
        const link = links.find((l) => l.id === cancel[1]);
        if (!link) {
          send(res, 400, { error: { code: 'BAD_REQUEST_ERROR', description: 'The id provided does not exist' } });
          return;
        }
        if (link.status !== 'created') {
          // Razorpay refuses to cancel a link that is no longer open.
          send(res, 400, {
            error: {
              code: 'BAD_REQUEST_ERROR',
              description: `Payment link cannot be cancelled in ${link.status} state`,
            },
          });
          return;
        }
        link.status = 'cancelled';
        send(res, 200, link);
      } else {
        send(res, 404, { error: { code: 'BAD_REQUEST_ERROR', description: 'The requested URL was not found' } });
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.base = base;
  return fake;
}

/** The environment that connects the app to a fake Razorpay. */
export function razorpayEnv(fake: FakeRazorpay): Record<string, string> {
  return {
    PAYMENTS_GATEWAY: 'razorpay',
    RAZORPAY_API_BASE: fake.base,
    RAZORPAY_KEY_ID: fake.keyId,
    RAZORPAY_KEY_SECRET: fake.keySecret,
    RAZORPAY_WEBHOOK_SECRET: fake.webhookSecret,
  };
}
