import type { Clock } from '../lib/clock.js';
import type { RateLimitStore } from './port.js';

/** This process's own fixed-window counters: the default, and the Redis adapter's fallback. */
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
