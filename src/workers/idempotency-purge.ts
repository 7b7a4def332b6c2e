import type { IdempotencyStore } from '../idempotency/store.js';
import type { Job } from './runner.js';

/** Deletes Idempotency-Key records once their 24-hour window has passed. */
export function idempotencyPurge(idempotency: IdempotencyStore, idleMs = 10 * 60_000): Job {
  return {
    name: 'idempotency-purge',
    idleMs,
    runOnce: () => idempotency.purgeExpired(),
  };
}
