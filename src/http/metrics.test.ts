import { Histogram, type Metric, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, RequestDurations } from './metrics.js';

describe('RequestDurations', () => {
  const observations: [string, string, number, number][] = [
    ['GET', '/v1/transactions/:id', 200, 0.0004],
    ['GET', '/v1/transactions/:id', 200, 0.001],
    ['GET', '/v1/transactions/:id', 200, 0.0031],
    ['GET', '/v1/transactions/:id', 404, 0.0002],
    ['POST', '/v1/transactions', 201, 0.7],
    ['POST', '/v1/transactions', 201, 3.5],
    ['GET', 'unmatched', 404, 0.01],
  ];

  it("exposes exactly what prom-client's Histogram exposes for the same observations", async () => {
    const ours = new Registry();
    const durations = new RequestDurations();
    ours.registerMetric(durations as unknown as Metric);
    const reference = new Registry();
    const histogram = new Histogram({
      name: 'http_request_duration_seconds',
      help: durations.help,
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers: [reference],
    });
    for (const [method, route, status, seconds] of observations) {
      durations.observe(method, route, status, seconds);
      histogram.observe({ method, route, status }, seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/v1/transactions/:id",status="200"} 3',
    );
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.001",method="GET",route="/v1/transactions/:id",status="200"} 2',
    );
  });

  it('starts over on reset', async () => {
    const registry = new Registry();
    const durations = new RequestDurations();
    registry.registerMetric(durations as unknown as Metric);
    durations.observe('GET', '/v1/me', 200, 0.002);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('_count{');
  });
});
