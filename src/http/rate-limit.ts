import { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.js';

/**
 * Fixed-window counters behind a port (in memory by default, Redis when REDIS_URL is set so that
 * several processes share one budget). We use our own small limiter rather than
 * @fastify/rate-limit because the contract needs two different budgets (per API key after
 * authentication, and per client address for failed authentication only) and exact headers.
 */
export interface RateLimitStore {
  /** Counts one hit on `key` and returns the count in the current window and when it resets. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();
  #lastPurge = 0;

  constructor(private readonly clock: Clock) {}

  async hit(key: string, windowMs: number) {
    const now = this.clock.now().getTime();
    this.#purge(now);
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetInMs: w.resetAt - now };
  }

  /** Drops expired windows at most once a minute, so memory follows the number of active keys. */
  #purge(now: number) {
    if (now - this.#lastPurge < 60_000) return;
    this.#lastPurge = now;
    for (const [key, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(key);
  }

  async close() {}
}

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Shared counters in Redis (one atomic script per hit). If Redis cannot be reached the limiter
 * falls back to this process's own counters rather than refusing or waving through all traffic.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #fallback: MemoryRateLimitStore;
  readonly #onError: (error: unknown) => void;

  constructor(url: string, clock: Clock, onError: (error: unknown) => void) {
    this.#redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      // Queue commands while (re)connecting, e.g. right after start-up; hit() bounds the wait.
      enableOfflineQueue: true,
      connectTimeout: 2000,
      commandTimeout: 500,
    });
    this.#redis.on('error', () => {});
    // defineCommand sends the script once and then calls it by its SHA.
    this.#redis.defineCommand('rateLimitHit', {
      numberOfKeys: 1,
      lua: HIT_SCRIPT,
    });
    this.#fallback = new MemoryRateLimitStore(clock);
    this.#onError = onError;
  }

  async hit(key: string, windowMs: number) {
    try {
      const redis = this.#redis as Redis & {
        rateLimitHit(key: string, ms: string): Promise<[number, number]>;
      };
      const [count, ttl] = await withTimeout(redis.rateLimitHit(`rl:${key}`, String(windowMs)), 500);
      return { count, resetInMs: ttl };
    } catch (error) {
      this.#onError(error);
      return this.#fallback.hit(key, windowMs);
    }
  }

  async close() {
    this.#redis.disconnect();
  }
}
