import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

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
});
