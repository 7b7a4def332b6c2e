import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';

export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface DurationSeries {
  labels: { method: string; route: string; status: number };
  /** observations per bucket (not cumulative); the last one is past every bound (+Inf only) */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds`, observed on every response. prom-client's Histogram validates
 * and hashes the label object of each observation and finds its bucket through number-keyed
 * properties (about 0.7 us a call); together with the hook it needed, that was about a tenth of
 * what Fastify adds to a request (issue 2's bench). Here a series is one Map lookup and a few
 * additions; the registry reads the series when scraped, in prom-client's histogram format
 * (cumulative `le` buckets, `+Inf`, `_sum`, `_count`), so `/metrics` reads the same.
 */
export class RequestDurations {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP request latency by route and status (its _count is the request count)';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, DurationSeries>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      series = {
        labels: { method, route, status },
        buckets: new Float64Array(DURATION_BUCKETS.length + 1),
        sum: 0,
        count: 0,
      };
      this.#series.set(key, series);
    }
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[i] as number)) i++;
    (series.buckets[i] as number)++;
    series.sum += seconds;
    series.count++;
  }

  async get() {
    const values: { value: number; labels: Record<string, string | number>; metricName: string }[] = [];
    for (const { labels, buckets, sum, count } of this.#series.values()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += buckets[i] as number;
        values.push({ value: cumulative, labels: { le, ...labels }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: count, labels: { le: '+Inf', ...labels }, metricName: `${this.name}_bucket` });
      values.push({ value: sum, labels, metricName: `${this.name}_sum` });
      values.push({ value: count, labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.#series.clear();
  }
}

/**
 * Prometheus metrics (PRODUCT part 9). One registry per process; workers record their outcomes
 * on the same object, and queue lag gauges are read from the store at scrape time.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new RequestDurations();
  // Not one of prom-client's classes, but what its registry reads of one (name, help, get, reset).
  registry.registerMetric(httpDuration as unknown as Metric);
  return {
    registry,
    httpDuration,
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
