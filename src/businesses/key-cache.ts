/**
 * The API keys this process has authenticated, with their business, so that a request does not
 * hash its key and read the store when nothing has changed. Correctness rests on two signals:
 *
 * - `changes()`, a number the store changes whenever *another* connection commits (SQLite's
 *   `PRAGMA data_version`: the admin CLI revoking a key or changing a plan from its own process).
 *   When it moves, everything is dropped.
 * - `invalidate()`, called by this process after it writes a business or a key itself (its own
 *   commits do not move `data_version`).
 *
 * A lookup that started before an invalidation may finish after it; `generation` tells `set` to
 * drop such a stale answer. Only stores with a cheap change signal get a cache (not PostgreSQL,
 * where several processes would need one).
 */
export class KeyCache<T> {
  readonly #entries = new Map<string, T>();
  readonly #changes: () => unknown;
  readonly #max: number;
  #seen: unknown;
  #generation = 0;

  constructor(changes: () => unknown, max = 10_000) {
    this.#changes = changes;
    this.#max = max;
    this.#seen = changes();
  }

  /** A cached entry, after dropping everything if another connection has committed since. */
  get(key: string): T | undefined {
    const now = this.#changes();
    if (now !== this.#seen) {
      this.#seen = now;
      this.invalidate();
      return undefined;
    }
    return this.#entries.get(key);
  }

  /** Take before reading the store; pass to `set` so an answer read before a change is not kept. */
  get generation(): number {
    return this.#generation;
  }

  set(key: string, value: T, generation: number): void {
    if (generation !== this.#generation) return;
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, value);
  }

  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
