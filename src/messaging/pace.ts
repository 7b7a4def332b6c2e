import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { lockBucket, saveBucket } from './pace-repository.js';

/**
 * The number's sending pace (WHATSAPP_MESSAGES_PER_SECOND), shared by every business and every
 * process: a token bucket kept in the store, refilled at the rate, holding at most one second's
 * worth. The reminder scheduler takes tokens before it claims steps, so a step that finds none
 * stays scheduled and goes out at the next run, late by the wait, never skipped and never bunched
 * past the rate. Sends that a person is waiting for (a chat reply, a sign-in code, a reminder sent
 * from the API) are charged without waiting; the bucket may go below zero, and the scheduler then
 * waits that debt out.
 */
export interface SendPace {
  /** Up to `wanted` tokens now; when fewer, how long until the next one. */
  take(wanted: number): Promise<{ granted: number; waitMs: number }>;
  /** Counts sends that do not wait. */
  charge(count: number): Promise<void>;
  /** Gives back tokens taken for steps that were not sent after all (held back, paid meanwhile). */
  refund(count: number): Promise<void>;
}

/** No pace (CHAT_CHANNEL=log: nothing leaves the process). */
export const unpaced: SendPace = {
  async take(wanted) {
    return { granted: wanted, waitMs: 0 };
  },
  async charge() {},
  async refund() {},
};

export class StorePace implements SendPace {
  readonly #name = 'whatsapp';
  constructor(private readonly deps: { db: Db; clock: Clock; perSecond: number }) {}

  take(wanted: number) {
    return this.#adjust((tokens) => {
      const granted = Math.max(0, Math.min(wanted, Math.floor(tokens)));
      const left = tokens - granted;
      const waitMs = granted < wanted ? Math.ceil(((1 - left) * 1000) / this.deps.perSecond) : 0;
      return { tokens: left, result: { granted, waitMs } };
    });
  }

  charge(count: number) {
    return this.#adjust((tokens) => ({ tokens: tokens - count, result: undefined }));
  }

  refund(count: number) {
    if (count <= 0) return Promise.resolve();
    return this.#adjust((tokens) => ({ tokens: tokens + count, result: undefined }));
  }

  #adjust<T>(change: (tokens: number) => { tokens: number; result: T }): Promise<T> {
    const { db, clock, perSecond } = this.deps;
    return db.transaction().execute(async (trx) => {
      const now = clock.now();
      const row = await lockBucket(trx, this.#name, perSecond, now.toISOString());
      const last = Date.parse(row.updated_at);
      const elapsedMs = Math.max(0, now.getTime() - last);
      const refilled = Math.min(perSecond, Number(row.tokens) + (elapsedMs * perSecond) / 1000);
      const { tokens, result } = change(refilled);
      // Never move the bucket's time back (another process's clock may be behind this one's).
      const at = new Date(Math.max(now.getTime(), last)).toISOString();
      await saveBucket(trx, this.#name, Math.min(perSecond, tokens), at);
      return result;
    });
  }
}
