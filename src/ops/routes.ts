import { timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import { errors } from '../errors.js';
import type { App } from '../http/types.js';
import { workerLag } from './worker-lag.js';

const QueueLag = Type.Object({
  oldest_due_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  lag_seconds: Type.Number({ minimum: 0 }),
});

const ReadyResponses = {
  200: Type.Object({
    status: Type.Literal('ready'),
    store: Type.Literal('reachable'),
    /** how far the background workers are behind (PRODUCT part 24) */
    workers: Type.Object({ webhooks: QueueLag, reminders: QueueLag }),
  }),
  503: Type.Object({ status: Type.Literal('unavailable'), reason: Type.String() }),
};

/** PRODUCT part 9: liveness, readiness (the store answers) and Prometheus metrics. No API key. */
export async function opsRoutes(app: App) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({
    status: 'ok',
  }));

  app.get('/readyz', { schema: { hide: true, response: ReadyResponses } }, async (_request, reply) => {
    try {
      await app.deps.store.ping();
      // Beside the store, the workers' lag: a process that answers while no worker runs (or all
      // fail) is ready to serve, and says how far behind the background work is.
      const workers = await workerLag(app.deps.store.db, app.deps.clock);
      return { status: 'ready' as const, store: 'reachable' as const, workers };
    } catch {
      return reply.code(503).header('retry-after', '2').send({ status: 'unavailable', reason: 'store unreachable' });
    }
  });

  const metricsToken = app.deps.config.metricsToken;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    // METRICS_TOKEN set: only a scraper with `Authorization: Bearer <token>` reads the metrics.
    if (metricsToken !== undefined && !bearerMatches(request.headers.authorization, metricsToken)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send(errors.unauthorized('missing or invalid metrics token').toBody());
    }
    const { registry } = app.deps.metrics;
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
