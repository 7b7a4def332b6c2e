import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Prometheus metrics (PRODUCT part 9). One registry per process; workers record their outcomes
 * on the same object, and queue lag gauges are read from the store at scrape time.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    /** Observed on every response (app.ts's onSend hook). */
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route and status (its _count is the request count)',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    renderedResponses: new Counter({
      name: 'rendered_response_cache_total',
      help: 'Responses served rendered (hit) or read from the store (miss), by route (http/rendered.ts)',
      labelNames: ['route', 'outcome'] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    reminders: new Counter({
      name: 'reminders_total',
      help: 'Reminder attempts by outcome (sent, or the protection that held it back)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    jobRuns: new Counter({
      name: 'worker_job_items_total',
      help: 'Items handled by background jobs',
      labelNames: ['job'] as const,
      registers: [registry],
    }),
    jobErrors: new Counter({
      name: 'worker_job_errors_total',
      help: 'Background job runs that failed',
      labelNames: ['job'] as const,
      registers: [registry],
    }),
    storeUp: new Gauge({
      name: 'store_up',
      help: 'Whether the database answers (1) or is unreachable (0): an outage in progress (issue 25)',
      registers: [registry],
    }),
    storeOutages: new Counter({
      name: 'store_outages_total',
      help: 'Times the database became unreachable (one per outage, not per failed request)',
      registers: [registry],
    }),
    redisUp: new Gauge({
      name: 'rate_limit_redis_up',
      help: 'Whether the shared rate limiter uses Redis (1) or counts in this process because Redis is away (0)',
      registers: [registry],
    }),
    redisOutages: new Counter({
      name: 'rate_limit_redis_outages_total',
      help: "Times the rate limiter's circuit breaker opened because Redis failed",
      registers: [registry],
    }),
    rateLimitLocalHits: new Counter({
      name: 'rate_limit_local_hits_total',
      help: 'Rate-limit hits counted by this process alone while the Redis breaker was open',
      registers: [registry],
    }),
    backups: new Counter({
      name: 'backups_total',
      help: 'Scheduled backups of the SQLite store by outcome (taken, failed)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    lastBackup: new Gauge({
      name: 'backup_last_success_timestamp_seconds',
      help: 'When the last scheduled backup was taken (Unix seconds); alert when it is older than twice the interval',
      registers: [registry],
    }),
    /** Register a gauge whose value is read (e.g. from the store) when Prometheus scrapes. */
    lagGauge(name: string, help: string, read: () => Promise<number>) {
      return new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          try {
            this.set(await read());
          } catch {
            // A failing read leaves the last value; /readyz reports the store itself.
          }
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
