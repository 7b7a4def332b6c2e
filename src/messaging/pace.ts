import type { Db, Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { lockBucket, saveBucket } from './pace-repository.js';

/**
 * The number's sending pace (WHATSAPP_MESSAGES_PER_SECOND), shared by every business and every
 * process: a token bucket kept in the store. A bucket of capacity C refilled at R lets C + R through
 * in a second, so it holds a fifth of the rate (at least one) and refills at the rest (less a margin):
 * no one-second window ever sees more than the rate (WhatsApp refuses the excess with 130429). A fifth, so that a
 * sender whose runs are a quarter of a second apart (a busy machine) loses none of the refill. The reminder scheduler takes tokens before it claims steps, so a step that finds none
 * stays scheduled and goes out at the next run, late by the wait, never skipped and never bunched
 * past the rate. Sends that a person is waiting for (a chat reply, a sign-in code, a reminder sent
 * from the API) are charged without waiting; the bucket may go below zero, and the scheduler then
 * waits that debt out.
 */
export interface SendPace {
  /** Up to `wanted` tokens now; when fewer, how long until the next one. In `trx` when given. */
  take(wanted: number, trx?: Executor): Promise<{ granted: number; waitMs: number }>;
  /** Counts sends that do not wait. */
  charge(count: number): Promise<void>;
  /** Gives back tokens taken for steps that were not sent after all (held back, paid meanwhile). */
  refund(count: number, trx?: Executor): Promise<void>;
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

  /** The most tokens the bucket holds. */
  get #capacity(): number {
    return Math.max(1, Math.floor(this.deps.perSecond / 5));
  }

  /**
   * Tokens added per second: the rest of the rate, less 5%, because messages granted in one second
   * may reach WhatsApp a little closer together than they were granted.
   */
  get #refill(): number {
    return Math.max(1, Math.floor(this.deps.perSecond * 0.95) - this.#capacity);
  }

  take(wanted: number, trx?: Executor) {
    return this.#adjust(trx, (tokens) => {
      const granted = Math.max(0, Math.min(wanted, Math.floor(tokens)));
      const left = tokens - granted;
      const waitMs = granted < wanted ? Math.ceil(((1 - left) * 1000) / this.#refill) : 0;
      return { tokens: left, result: { granted, waitMs } };
    });
  }

  charge(count: number) {
    return this.#adjust(undefined, (tokens) => ({ tokens: tokens - count, result: undefined }));
  }

  refund(count: number, trx?: Executor) {
    if (count <= 0) return Promise.resolve();
    return this.#adjust(trx, (tokens) => ({ tokens: tokens + count, result: undefined }));
  }

  #adjust<T>(within: Executor | undefined, change: (tokens: number) => { tokens: number; result: T }): Promise<T> {
    const { db, clock } = this.deps;
    const capacity = this.#capacity;
    const adjust = async (trx: Executor) => {
      const now = clock.now();
      const row = await lockBucket(trx, this.#name, capacity, now.toISOString());
      const last = Date.parse(row.updated_at);
      const elapsedMs = Math.max(0, now.getTime() - last);
      const refilled = Math.min(capacity, Number(row.tokens) + (elapsedMs * this.#refill) / 1000);
      const { tokens, result } = change(refilled);
      // Never move the bucket's time back (another process's clock may be behind this one's).
      const at = new Date(Math.max(now.getTime(), last)).toISOString();
      await saveBucket(trx, this.#name, Math.min(capacity, tokens), at);
      return result;
    };
    return within ? adjust(within) : db.transaction().execute(adjust);
  }
}
