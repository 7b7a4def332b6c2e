import { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import { MemoryRateLimitStore } from './memory.js';
import type { RateLimitStore } from './port.js';

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

/** What the breaker reports: once when it opens (with the cause), once when it closes. */
export interface BreakerEvents {
  onOpen?(cause: unknown): void;
  onClose?(): void;
  /** A hit counted by this process alone because the breaker is open. */
  onLocalHit?(): void;
}

export interface RedisRateLimitOptions {
  /** How long a hit may wait for Redis before it is counted locally and the breaker opens. */
  timeoutMs?: number;
  /** While open with the connection up (Redis hung rather than gone): how often to PING it. */
  probeMs?: number;
}

/**
 * Shared counters in Redis (one atomic script per hit) behind a circuit breaker. Closed: hits go
 * to Redis. Any failure (connection error or close, a hit that times out) opens it: from then on
 * every hit is counted by this process at once (limits hold per process, nobody waits on a dead
 * Redis). It closes again when ioredis reconnects ('ready'), or, if the connection stayed up but
 * Redis stopped answering, when a background PING answers.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #fallback: MemoryRateLimitStore;
  readonly #events: BreakerEvents;
  readonly #timeoutMs: number;
  readonly #probeMs: number;
  #open = false;
  #closed = false;
  /** Connected at least once: until then hits are counted locally, neither waiting nor tripping. */
  #connected = false;
  #probe: NodeJS.Timeout | undefined;

  constructor(url: string, clock: Clock, events: BreakerEvents = {}, opts: RedisRateLimitOptions = {}) {
    this.#events = events;
    this.#timeoutMs = opts.timeoutMs ?? 250;
    this.#probeMs = opts.probeMs ?? 1000;
    this.#redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      // Queue commands while connecting at start-up; hit() bounds the wait, and once the
      // breaker is open nothing is sent until the connection is back.
      enableOfflineQueue: true,
      connectTimeout: 2000,
      commandTimeout: this.#timeoutMs,
      // Reconnect for ever, at most every 2 s: the 'ready' that follows closes the breaker.
      retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
    });
    this.#redis.on('error', (error) => this.#trip(error));
    this.#redis.on('close', () => this.#trip(new Error('connection to Redis closed')));
    this.#redis.on('ready', () => {
      this.#connected = true;
      this.#reset();
    });
    // defineCommand sends the script once and then calls it by its SHA.
    this.#redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.#fallback = new MemoryRateLimitStore(clock);
  }

  /** True once the first connection to Redis is up. */
  get connected(): boolean {
    return this.#connected;
  }

  /** True while hits are counted by this process alone. */
  get open(): boolean {
    return this.#open;
  }

  async hit(key: string, windowMs: number) {
    // Before the first connection (a process starting) a hit neither waits for it nor counts as an
    // outage: a slow first connect is not Redis going away. A Redis that refuses trips through 'error'.
    if (!this.#open && this.#connected) {
      try {
        const redis = this.#redis as Redis & {
          rateLimitHit(key: string, ms: string): Promise<[number, number]>;
        };
        const [count, ttl] = await withTimeout(redis.rateLimitHit(`rl:${key}`, String(windowMs)), this.#timeoutMs);
        return { count, resetInMs: ttl };
      } catch (error) {
        this.#trip(error);
      }
    }
    this.#events.onLocalHit?.();
    return this.#fallback.hit(key, windowMs);
  }

  #trip(cause: unknown) {
    if (this.#open || this.#closed) return;
    this.#open = true;
    this.#events.onOpen?.(cause);
    this.#probe = setInterval(() => {
      // Not connected: ioredis is reconnecting and its 'ready' closes the breaker.
      if (this.#redis.status !== 'ready') return;
      withTimeout(this.#redis.ping(), this.#timeoutMs).then(
        () => this.#reset(),
        () => {},
      );
    }, this.#probeMs);
    this.#probe.unref();
  }

  #reset() {
    if (!this.#open || this.#closed) return;
    this.#open = false;
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.#events.onClose?.();
  }

  async close() {
    this.#closed = true;
    clearInterval(this.#probe);
    this.#redis.disconnect();
  }
}
