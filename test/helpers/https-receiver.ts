import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A status, or a status with a body; `delayMs` waits before answering at all, `bodyDelayMs` sends
 * the headers at once and the body only after that long.
 */
export type ReceiverAnswer = number | { status: number; body?: string; delayMs?: number; bodyDelayMs?: number };

export interface HttpsReceiver {
  /** https://127.0.0.1:<port>/hook (the certificate also names localhost) */
  url: string;
  port: number;
  /** PEM of the self-signed certificate, to trust it */
  ca: string;
  /** file holding that PEM, for NODE_EXTRA_CA_CERTS in child processes */
  caPath: string;
  requests: ReceivedRequest[];
  /** how to answer from now on; the default is 200, 'hang' never answers */
  respond(handler: ((req: ReceivedRequest) => ReceiverAnswer) | 'hang'): void;
  /** resolves with the requests once at least `count` have arrived */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

interface Certificate {
  key: string;
  cert: string;
  certPath: string;
}

let certificate: Promise<Certificate> | undefined;

/** One self-signed certificate per test process, for 127.0.0.1 and localhost, valid two days. */
function selfSignedCertificate(): Promise<Certificate> {
  certificate ??= Promise.resolve().then(() => {
    const dir = mkdtempSync(path.join(tmpdir(), 'https-receiver-'));
    const keyPath = path.join(dir, 'key.pem');
    const certPath = path.join(dir, 'cert.pem');
    execFileSync(
      '/usr/bin/openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        keyPath,
        '-out',
        certPath,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath };
  });
  return certificate;
}

/**
 * A local HTTPS webhook receiver: records every request (body as received, decoded as UTF-8) and
 * answers as told, after the whole body has arrived.
 */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const { key, cert, certPath } = await selfSignedCertificate();
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const open = new Set<ServerResponse>(); // destroyed by close(), whatever they are waiting for
  let handler: ((req: ReceivedRequest) => ReceiverAnswer) | 'hang' = () => 200;

  const server = https.createServer({ key, cert }, (req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      for (const wake of waiters) wake();
      if (handler === 'hang') return;
      const answer = handler(received);
      const {
        status,
        body = '',
        delayMs = 0,
        bodyDelayMs = 0,
      } = typeof answer === 'number' ? { status: answer } : answer;
      // a response the sender has given up on (or close() destroyed) is not written to any more
      const later = (ms: number, action: () => void) => {
        if (ms === 0) action();
        else setTimeout(() => res.destroyed || action(), ms);
      };
      later(delayMs, () => {
        const headers: Record<string, string> = { 'content-type': 'text/plain' };
        if (status >= 300 && status < 400) headers.location = '/elsewhere';
        res.writeHead(status, headers);
        if (bodyDelayMs > 0) res.flushHeaders();
        later(bodyDelayMs, () => res.end(body));
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;

  return {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    ca: cert,
    caPath: certPath,
    requests,
    respond(next) {
      handler = next;
    },
    waitFor(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of open) res.destroy();
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}
