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

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const { registry } = app.deps.metrics;
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
