import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { blockedReason } from './network-guard.js';

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface WebhookResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** more than `error` says (a refused target's resolved address): for the server log, never stored */
  detail?: string;
  durationMs: number;
}

export interface WebhookSender {
  send(req: WebhookRequest, signal?: AbortSignal): Promise<WebhookResult>;
  close(): Promise<void>;
}

export interface HttpSenderOptions {
  /** the whole attempt: connect, headers and reading the body */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS */
  allowPrivateNetworks: boolean;
  /** extra trusted CA certificates (PEM), added to the bundled roots */
  ca?: string | string[];
  /** resolver, dns.lookup by default (tests inject one) */
  lookup?: typeof dns.lookup;
  /** told why a target was refused, with the address (for the server log; the business sees BLOCKED_MESSAGE) */
  onRefused?: (detail: string) => void;
  /** connections per origin, 16 by default */
  connections?: number;
  userAgent?: string;
}

/** At most this much of a response body is read; receivers have nothing to tell us. */
const MAX_BODY_BYTES = 64 * 1024;

/** What a business sees of a refused target (the detail, with the address, is `WebhookResult.detail`). */
export const BLOCKED_MESSAGE = 'destination not allowed';

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
}

/**
 * A `lookup` for net/tls.connect that hands on only addresses a webhook may reach. Node calls it
 * with `all: true` when it tries several addresses in turn (autoSelectFamily, the default since
 * Node 20), otherwise it expects a single address; the underlying resolver is always asked for all.
 */
function guardedLookup(lookup: typeof dns.lookup): net.LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const allowed = addresses.filter((entry) => blockedReason(entry.address) === null);
      const first = allowed[0];
      if (first === undefined) {
        const refused = addresses[0];
        const reason = refused
          ? `refused: ${hostname} resolves to a ${blockedReason(refused.address)} (${refused.address})`
          : `DNS lookup failed: no address for ${hostname}`;
        return callback(new BlockedAddressError(reason), '');
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * The connector of the sender's Agent. With the guard on, every connection is checked three
 * times: IP-literal hosts before connecting (Node skips `lookup` for them), names through the
 * guarded lookup (so the address checked is the one connected to: no DNS-rebinding window), and
 * the socket's remote address once connected, in case some path bypassed the lookup.
 */
function connector(opts: HttpSenderOptions): buildConnector.connector {
  const lookup = opts.allowPrivateNetworks ? opts.lookup : guardedLookup(opts.lookup ?? dns.lookup);
  const connect = buildConnector({
    timeout: opts.timeoutMs,
    // Without `ca` Node's default trust applies, which includes NODE_EXTRA_CA_CERTS. With it, the
    // context (Node's roots plus the extra CAs) is built once: parsing ~150 roots for every new
    // connection would cost milliseconds each.
    ...(opts.ca === undefined
      ? {}
      : { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, ...[opts.ca].flat()] }) }),
    ...(lookup === undefined ? {} : { lookup: lookup as net.LookupFunction }),
  });
  if (opts.allowPrivateNetworks) return connect;

  return (options, callback) => {
    // undici passes IPv6 literals without their brackets
    const literalReason = net.isIP(options.hostname) ? blockedReason(options.hostname) : null;
    if (literalReason !== null) {
      const error = new BlockedAddressError(`refused: ${options.hostname} is a ${literalReason}`);
      process.nextTick(() => callback(error, null));
      return;
    }
    connect(options, (error, socket) => {
      if (error) return callback(error, null);
      const remote = socket.remoteAddress;
      const reason = remote === undefined ? 'an address that cannot be checked' : blockedReason(remote);
      if (reason === null) return callback(null, socket);
      socket.destroy();
      const target = remote === undefined ? reason : `a ${reason} (${remote})`;
      callback(new BlockedAddressError(`refused: ${options.hostname} connected to ${target}`), null);
    });
  };
}

/** Why a target was refused, with the address it resolved to: for the server log only. */
function blockedDetail(error: unknown): string | undefined {
  if (error instanceof AggregateError && error.errors[0] !== undefined && !('code' in error)) {
    return blockedDetail(error.errors[0]);
  }
  return error instanceof BlockedAddressError ? error.message : undefined;
}

/** A short reason for a failed attempt, without stack traces. */
function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof AggregateError && error.errors[0] !== undefined && !('code' in error)) {
    return describeError(error.errors[0], timeoutMs);
  }
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = (typeof message === 'string' ? message : String(error)).split('\n', 1)[0] ?? '';
  switch (code) {
    case 'EBLOCKEDADDRESS':
      // PRODUCT part 16: the business is told no more; the resolved address is for the server log.
      return BLOCKED_MESSAGE;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'ENODATA':
      return `DNS lookup failed: ${code}`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `timed out after ${timeoutMs} ms`;
    case 'UND_ERR_SOCKET':
      return `connection closed: ${text}`.slice(0, 200);
  }
  if (typeof code === 'string') {
    if (code === 'EPROTO' || /CERT|SSL|TLS/.test(code)) return `TLS error: ${code}`.slice(0, 200);
    return `${code}: ${text}`.slice(0, 200);
  }
  return (text || 'delivery failed').slice(0, 200);
}

/**
 * Delivers webhooks over HTTPS: one POST, no redirects, success only on 2xx within `timeoutMs`.
 * `send` never throws; every failure comes back as a short reason in `error`.
 */
export function createHttpSender(opts: HttpSenderOptions): WebhookSender {
  const userAgent = opts.userAgent ?? 'receivables-webhooks/1';
  const agent = new Agent({
    connect: connector(opts),
    connections: opts.connections ?? 16,
    // the overall timer below decides; these only make sure nothing outlives it by much
    headersTimeout: Math.ceil(opts.timeoutMs),
    bodyTimeout: Math.ceil(opts.timeoutMs),
  });

  function send(req: WebhookRequest, signal?: AbortSignal): Promise<WebhookResult> {
    const started = performance.now();
    let status: number | null = null;
    const result = (error: string | null, detail?: string): WebhookResult => ({
      ok: error === null,
      status,
      error,
      ...(detail !== undefined && { detail }),
      durationMs: Math.round(performance.now() - started),
    });

    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return Promise.resolve(result('invalid URL'));
    }
    if (url.protocol !== 'https:') return Promise.resolve(result('only https URLs are delivered'));
    if (signal?.aborted) return Promise.resolve(result('aborted'));

    // undici's dispatch API rather than `request`: no response stream, no AbortSignal per attempt
    // (together about a third of the client's cost per delivery); the attempt is cut short through
    // the dispatch controller instead.
    const refusedDetail = (error: unknown) => {
      const detail = blockedDetail(error);
      if (detail !== undefined) opts.onRefused?.(detail);
      return detail;
    };
    return new Promise<WebhookResult>((resolve) => {
      let controller: Dispatcher.DispatchController | null = null;
      // why the attempt was stopped by us, if it was: the timer, the caller, or a body too large
      let stopped: 'timeout' | 'aborted' | 'large body' | null = null;
      let received = 0;
      let settled = false;
      const settle = (error: string | null, detail?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(result(error, detail));
      };
      const outcome = () => {
        const code = status as number;
        if (code >= 200 && code < 300) return null;
        if (code >= 300 && code < 400) return `redirect not followed (HTTP ${code})`;
        return `HTTP ${code}`;
      };
      const stop = (why: 'timeout' | 'aborted') => {
        stopped = why;
        // Settled first: aborting reports an error to the handler at once. A request still queued
        // for a connection has no controller yet: it is aborted as soon as undici starts it.
        settle(why === 'timeout' ? `timed out after ${opts.timeoutMs} ms` : 'aborted');
        controller?.abort(new Error(why));
      };
      const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
      const onAbort = () => stop('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });

      let headers = req.headers;
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) {
        headers = { ...headers, 'user-agent': userAgent };
      }
      try {
        agent.dispatch(
          { origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers, body: req.body },
          {
            onRequestStart(c) {
              controller = c;
              if (stopped !== null) c.abort(new Error(stopped));
            },
            onResponseStart(_c, statusCode) {
              status = statusCode;
            },
            onResponseData(c, chunk) {
              // Read (and drop) the body so the connection can serve the next delivery; a large
              // one is cut short, which closes the connection instead.
              received += chunk.length;
              if (received > MAX_BODY_BYTES && stopped === null) {
                stopped = 'large body';
                c.abort(new Error('response body too large'));
              }
            },
            onResponseEnd() {
              settle(outcome());
            },
            onResponseError(_c, error) {
              // the status, when it came, stays in the result: it is what the receiver answered
              if (stopped === 'large body') settle(outcome());
              else settle(describeError(error, opts.timeoutMs), refusedDetail(error));
            },
          },
        );
      } catch (error) {
        settle(describeError(error, opts.timeoutMs), refusedDetail(error));
      }
    });
  }

  return {
    send,
    close: () => agent.close(),
  };
}
