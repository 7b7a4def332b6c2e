import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A webhook receiver for tests: HTTPS on 127.0.0.1 with a self-signed certificate made by
 * openssl at first use (valid for IP 127.0.0.1 and DNS localhost). The sender trusts it through an
 * injected CA (`ca`) or, in child processes, NODE_EXTRA_CA_CERTS=`caPath`.
 */

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** the exact body bytes, as text */
  body: string;
  at: number;
}

type Reply = number | { status: number; body?: string; delayMs?: number };
type Handler = ((req: ReceivedRequest) => Reply) | 'hang';

export interface HttpsReceiver {
  /** https://127.0.0.1:<port>/hook */
  url: string;
  port: number;
  ca: string;
  caPath: string;
  requests: ReceivedRequest[];
  /** How to answer from now on: a status, a status with a delay, or never ('hang'). Default 200. */
  respond(handler: Handler): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

let certificate: { key: string; cert: string; certPath: string } | undefined;

function selfSigned() {
  if (certificate) return certificate;
  const dir = mkdtempSync(path.join(tmpdir(), 'receiver-cert-'));
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
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
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  certificate = { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath };
  return certificate;
}

export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const { key, cert, certPath } = selfSigned();
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let handler: Handler = () => 200;

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
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
      const current = handler;
      if (current === 'hang') return;
      const reply = current(received);
      const { status, body = '', delayMs = 0 } = typeof reply === 'number' ? { status: reply } : reply;
      const send = () => {
        if (res.destroyed) return;
        if (status >= 300 && status < 400) res.setHeader('location', '/elsewhere');
        res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      };
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    ca: cert,
    caPath: certPath,
    requests,
    respond(next) {
      handler = next;
    },
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...requests]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
