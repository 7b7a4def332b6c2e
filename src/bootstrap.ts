import type { Logger } from 'pino';
import { createChannel } from './channels/index.js';
import { type Config, loadConfig } from './config.js';
import { migrate, openStore, type Store } from './db/store.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from './http/rate-limit.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createLogger } from './lib/logger.js';
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
  const store = openStore(config, {
    backgroundCheckpoints: !options.shortLived,
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
  const metrics = createMetrics();
  let redisWarned = false;
  const rateLimits: RateLimitStore = config.redisUrl
    ? new RedisRateLimitStore(config.redisUrl, clock, (error) => {
        if (!redisWarned) logger.warn({ err: error }, 'Redis unreachable; rate limits fall back to this process');
        redisWarned = true;
      })
    : new MemoryRateLimitStore(clock);
  const services = createServices({ store, clock, config, channel: createChannel(config, logger) });
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
