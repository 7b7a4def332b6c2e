import { timingSafeEqual } from 'node:crypto';
import { errors } from '../errors.js';
import type { App } from '../http/types.js';

/** PRODUCT part 9: liveness, readiness (the store answers) and Prometheus metrics. No API key. */
export async function opsRoutes(app: App) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({
    status: 'ok',
  }));

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await app.deps.store.ping();
      return { status: 'ready' };
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
