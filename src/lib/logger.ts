import { type Logger, pino } from 'pino';

/**
 * The path only: a query can carry secrets (WhatsApp's hub.verify_token), and the pay page token
 * is a bearer secret: both stay out of logs.
 */
export function redactUrl(url: string): string {
  return (url.split(/[?#]/, 1)[0] ?? '').replace(/\/pay\/[^/]+/, '/pay/[redacted]');
}

/** Structured JSON logs (pino) with API keys, idempotency keys and pay tokens kept out. */
export function createLogger(level: string, destination: 1 | 2 = 1): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers["idempotency-key"]'],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
        err: pino.stdSerializers.err,
      },
    },
    pino.destination(destination),
  );
}
