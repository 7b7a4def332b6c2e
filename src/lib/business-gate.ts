import { AppError } from '../errors.js';

/**
 * A small semaphore per business around the long reads (the dues and contacts lists, both
 * shapes): at most `perBusiness` of one business's run at once, the next `queueBound` wait in
 * arrival order, and any beyond that are refused with 429 at once (Retry-After: 1) rather than
 * piling up. One client, however many requests it sends, then holds at most `perBusiness` of the
 * read threads (SQLite) or pool connections (PostgreSQL), and the rest stay free for the other
 * businesses (PRODUCT part 17). Per process, in memory: nothing to share across processes,
 * since each process has threads and connections of its own.
 */
export class BusinessGate {
  readonly #slots = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(
    readonly perBusiness: number,
    readonly queueBound: number,
  ) {}

  async run<T>(businessId: string, work: () => Promise<T>): Promise<T> {
    let slot = this.#slots.get(businessId);
    if (!slot) {
      slot = { running: 0, waiting: [] };
      this.#slots.set(businessId, slot);
    }
    if (slot.running >= this.perBusiness) {
      if (slot.waiting.length >= this.queueBound) {
        throw new AppError('rate_limited', 'too many reads of this business at once; retry in a moment', {
          headers: { 'retry-after': '1' },
        });
      }
      // The slot is handed over by the one that leaves: running stays counted for us.
      await new Promise<void>((resolve) => slot?.waiting.push(resolve));
    } else {
      slot.running++;
    }
    try {
      return await work();
    } finally {
      const next = slot.waiting.shift();
      if (next) next();
      else if (--slot.running === 0) this.#slots.delete(businessId);
    }
  }

  /** Reads of this business running now (for tests and metrics). */
  running(businessId: string): number {
    return this.#slots.get(businessId)?.running ?? 0;
  }
}
