/**
 * The rate-limit port (fixed-window counters). The HTTP authentication hook and the pay page use
 * only this; the adapters are memory.ts (one process) and redis.ts (shared through Redis, with a
 * circuit breaker that falls back to memory while Redis is away).
 */
export interface RateLimitStore {
  /** Counts one hit on `key` and returns the count in the current window and when it resets. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  close(): Promise<void>;
}
