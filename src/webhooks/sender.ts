import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { Agent, buildConnector, request } from 'undici';
import { blockedReason } from './network-guard.js';

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface WebhookResult {
  ok: boolean;
  /** the receiver's HTTP status; null when no response came */
  status: number | null;
  /** short reason of a failure (no stack), null on success */
  error: string | null;
  durationMs: number;
}

/** The port the dispatcher sends through: an HTTPS client here, a fake in a unit test. */
export interface WebhookSender {
  send(req: WebhookRequest, signal?: AbortSignal): Promise<WebhookResult>;
  close(): Promise<void>;
}

export interface HttpSenderOptions {
  /** WEBHOOK_TIMEOUT_MS: bounds the whole attempt (connect, TLS, response, body) */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: skip the SSRF checks (local testing only) */
  allowPrivateNetworks: boolean;
  /** extra trusted CA certificates (PEM) on top of Node's trust store; tests inject their own */
  ca?: string | string[];
  /** the resolver (tests use it to make a public-looking name resolve to a private address) */
  lookup?: typeof dns.lookup;
  /** connections kept per receiver origin */
  connections?: number;
  userAgent?: string;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const MAX_ERROR = 200;
/** Bytes of a response body read (and dropped) so the connection can be reused. */
const MAX_RESPONSE_BODY = 64 * 1024;

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
}

function refusal(host: string, address: string, reason: string) {
  return new BlockedAddressError(
    host === address ? `refused: ${address} is a ${reason}` : `refused: ${host} resolves to a ${reason} (${address})`,
  );
}

/**
 * A `lookup` for the TLS socket that drops blocked addresses: the address checked is the one
 * connected to, so a name that resolves differently between a check and the connect (DNS
 * rebinding) cannot reach an internal address.
 */
function guardedLookup(base: typeof dns.lookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    base(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const allowed = list.filter((a) => blockedReason(a.address) === null);
      const first = allowed[0];
      if (!first) {
        const rejected = list[0];
        const error = rejected
          ? refusal(hostname, rejected.address, blockedReason(rejected.address) ?? 'blocked address')
          : Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        return callback(error, []);
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * The HTTPS client of webhook deliveries (undici): POST only, no redirects followed, success on
 * 2xx only, every failure reported as a short reason instead of thrown. Unless private networks
 * are allowed, loopback/private/link-local/CGNAT/reserved targets are refused at connect time:
 * IP literals before connecting, names through the guarded lookup, and the connected socket's
 * remote address checked once more.
 */
export function createHttpSender(opts: HttpSenderOptions): WebhookSender {
  const ca = opts.ca === undefined ? undefined : [...tls.rootCertificates, ...[opts.ca].flat()];
  const guard = !opts.allowPrivateNetworks;
  const connector = buildConnector({
    ...(ca && { ca }),
    ...(guard && { lookup: guardedLookup(opts.lookup ?? dns.lookup) }),
    ...(!guard && opts.lookup && { lookup: opts.lookup }),
    timeout: opts.timeoutMs,
  } as buildConnector.BuildOptions);

  const connect: buildConnector.connector = (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (guard && isIP(host)) {
      const reason = blockedReason(host);
      if (reason) return callback(refusal(host, host, reason), null);
    }
    connector(options, (err, socket) => {
      if (err) return callback(err, null);
      const remote = socket?.remoteAddress;
      const reason = guard && remote ? blockedReason(remote) : null;
      if (reason && remote) {
        socket?.destroy();
        return callback(refusal(host, remote, reason), null);
      }
      callback(null, socket as NonNullable<typeof socket>);
    });
  };

  const agent = new Agent({
    connections: opts.connections ?? 16,
    keepAliveTimeout: 10_000,
    connect,
  });
  const userAgent = opts.userAgent ?? 'receivables-webhooks/1';

  return {
    async send(req, signal) {
      const started = performance.now();
      const done = (status: number | null, error: string | null): WebhookResult => ({
        ok: error === null,
        status,
        error,
        durationMs: performance.now() - started,
      });
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return done(null, 'invalid URL');
      }
      if (url.protocol !== 'https:') return done(null, 'only https URLs are delivered');

      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const abort = signal ? AbortSignal.any([timeout, signal]) : timeout;
      try {
        const res = await request(url, {
          dispatcher: agent,
          method: 'POST',
          headers: { ...req.headers, 'user-agent': userAgent },
          body: req.body,
          signal: abort,
        });
        // Read a little of the body and drop it: the connection is reused, the attempt stays bounded.
        await res.body.dump({ limit: MAX_RESPONSE_BODY, signal: abort }).catch(() => {});
        if (res.statusCode >= 200 && res.statusCode < 300) return done(res.statusCode, null);
        if (res.statusCode >= 300 && res.statusCode < 400) {
          return done(res.statusCode, `redirect not followed (HTTP ${res.statusCode})`);
        }
        return done(res.statusCode, `HTTP ${res.statusCode}`);
      } catch (error) {
        if (timeout.aborted) return done(null, `timed out after ${opts.timeoutMs} ms`);
        if (signal?.aborted) return done(null, 'aborted');
        return done(null, describe(error));
      }
    },
    close: () => agent.close(),
  };
}

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME/;

/** A short, stack-free reason for a network failure. */
function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const inner = e.cause && typeof e.cause === 'object' ? e.cause : e;
  const code = inner.code ?? e.code ?? '';
  let text: string;
  if (code === 'EBLOCKEDADDRESS') text = inner.message;
  else if (code === 'ECONNREFUSED') text = 'connection refused';
  else if (code === 'ECONNRESET') text = 'connection reset by the receiver';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') text = `DNS lookup failed: ${code}`;
  else if (code === 'UND_ERR_CONNECT_TIMEOUT') text = 'connect timed out';
  else if (code === 'UND_ERR_SOCKET') text = 'connection closed by the receiver';
  else if (TLS_CODES.test(code)) text = `TLS error: ${code}`;
  else text = code ? `${code}: ${inner.message}` : inner.message || String(error);
  return text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 3)}...` : text;
}
