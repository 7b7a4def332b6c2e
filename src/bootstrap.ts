import type { Logger } from 'pino';
import { createChannel } from './channels/index.js';
import { type Config, loadConfig } from './config.js';
import type { StoreMonitor } from './db/health.js';
import { migrate, openStore, type Store } from './db/store.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createLogger } from './lib/logger.js';
import { MemoryRateLimitStore } from './rate-limit/memory.js';
import type { RateLimitStore } from './rate-limit/port.js';
import { type BreakerEvents, RedisRateLimitStore } from './rate-limit/redis.js';
import { createServices, type Services } from './services.js';

export interface Runtime {
  config: Config;
  logger: Logger;
  store: Store;
  clock: Clock;
  services: Services;
  metrics: Metrics;
  rateLimits: RateLimitStore;
  close(): Promise<void>;
}

/** config -> logger -> store (migrated) -> services: shared by the server, the worker and the CLI. */
export async function bootstrap(
  options: {
    env?: Record<string, string | undefined>;
    logLevel?: string;
    logToStderr?: boolean;
    /** a one-off command (the admin CLI): no background threads */
    shortLived?: boolean;
  } = {},
): Promise<Runtime> {
  const config = loadConfig(options.env);
  const logger = createLogger(options.logLevel ?? config.logLevel, options.logToStderr ? 2 : 1);
  const metrics = createMetrics();
  const store = openStore(config, {
    backgroundCheckpoints: !options.shortLived,
    monitor: storeMonitor(logger, metrics),
    // Once per outage, not once per refused write.
    onStorageFault: (failure) =>
      failure
        ? logger.error({ err: failure.cause ?? failure }, 'the store cannot take writes; answering 503 until it can')
        : logger.info('the store takes writes again'),
  });
  try {
    await migrate(store.db);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  const clock = systemClock;
  const rateLimits: RateLimitStore = config.redisUrl
    ? new RedisRateLimitStore(config.redisUrl, clock, redisBreakerEvents(logger, metrics), {
        timeoutMs: config.redisTimeoutMs,
      })
    : new MemoryRateLimitStore(clock);
  const services = createServices({ store, clock, config, logger, channel: createChannel(config, logger) });
  return {
    config,
    logger,
    store,
    clock,
    metrics,
    rateLimits,
    services,
    async close() {
      await services.webhookSender.close();
      await rateLimits.close();
      await store.close();
    },
  };
}

/** An outage of the store: logged once when it starts (with its cause) and once when it ends. */
function storeMonitor(logger: Logger, metrics: Metrics): StoreMonitor {
  metrics.storeUp.set(1);
  return {
    onDown(cause) {
      metrics.storeUp.set(0);
      metrics.storeOutages.inc();
      logger.error({ err: cause }, 'database unreachable: requests answer 503 until it is back');
    },
    onUp(downForMs) {
      metrics.storeUp.set(1);
      logger.info({ downForMs }, 'database reachable again');
    },
  };
}

/** The Redis rate limiter's circuit breaker: logged once per outage, counted in metrics. */
function redisBreakerEvents(logger: Logger, metrics: Metrics): BreakerEvents {
  metrics.redisUp.set(1);
  return {
    onOpen(cause) {
      metrics.redisUp.set(0);
      metrics.redisOutages.inc();
      logger.warn({ err: cause }, 'Redis unreachable: rate limits are counted per process until it is back');
    },
    onClose() {
      metrics.redisUp.set(1);
      logger.info('Redis reachable again: rate limits are shared again');
    },
    onLocalHit() {
      metrics.rateLimitLocalHits.inc();
    },
  };
}

/** SIGTERM/SIGINT: run `shutdown` once, exit 0 when it finishes (1 if it fails or hangs). */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>, timeoutMs = 30_000) {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight work');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    shutdown().then(
      () => {
        logger.info('shut down cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
