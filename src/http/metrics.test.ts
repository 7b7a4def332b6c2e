import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics, DURATION_BUCKETS, RequestDurations } from './metrics.js';

describe('createMetrics: http_request_duration_seconds', () => {
  it('counts each observation in its bucket, by method, route and status', async () => {
    const metrics = createMetrics();
    const route = '/v1/transactions/:id';
    metrics.httpDuration.observe({ method: 'GET', route, status: 200 }, 0.0004);
    metrics.httpDuration.observe({ method: 'GET', route, status: 200 }, 0.0031);
    metrics.httpDuration.observe({ method: 'GET', route, status: 404 }, 0.0002);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`http_request_duration_seconds_count{method="GET",route="${route}",status="200"} 2`);
    expect(text).toContain(
      `http_request_duration_seconds_bucket{le="0.001",method="GET",route="${route}",status="200"} 1`,
    );
    expect(text).toContain(
      `http_request_duration_seconds_bucket{le="0.005",method="GET",route="${route}",status="200"} 2`,
    );
    expect(text).toContain(`http_request_duration_seconds_count{method="GET",route="${route}",status="404"} 1`);
  });

  // GET /metrics serves the registry's text: the same bytes as before RequestDurations replaced prom-client's Histogram.
  it("exports exactly what prom-client's Histogram exports for the same observations", async () => {
    const ours = new Registry();
    const durations = new RequestDurations(ours);
    const theirs = new Registry();
    const histogram = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route and status (its _count is the request count)',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: DURATION_BUCKETS,
      registers: [theirs],
    });
    const routes = ['/v1/transactions/:id', '/v1/summary', 'unmatched', '/pay/:token'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    // Values on the bounds, between them and beyond the last one, on several series.
    const values = [...DURATION_BUCKETS, 0, 3.7, 1e-6, ...Array.from({ length: 300 }, () => next() ** 4 * 4)];
    for (const [i, value] of values.entries()) {
      const labels = {
        method: i % 5 === 0 ? 'POST' : 'GET',
        route: routes[i % routes.length] as string,
        status: [200, 404, 201, 429][Math.floor(next() * 4)] as number,
      };
      durations.record(labels.method, labels.route, labels.status, value);
      histogram.observe(labels, value);
    }
    const name = 'http_request_duration_seconds';
    expect(await ours.getSingleMetricAsString(name)).toBe(await theirs.getSingleMetricAsString(name));
    durations.reset();
    histogram.reset();
    expect(await ours.getSingleMetricAsString(name)).toBe(await theirs.getSingleMetricAsString(name));
  });
});
