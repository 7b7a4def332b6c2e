/**
 * The service layer's one in-memory cache, in typed namespaces (services.ts makes them):
 *
 * - `apiKeys`: the API keys this process has authenticated, with their business
 *   (businesses/api-keys.ts). Version: the store's `otherCommits()` (SQLite's `data_version`, which
 *   moves when another process such as the admin CLI commits; on PostgreSQL a counter moved by a
 *   NOTIFY that triggers on the keys and businesses send, see db/postgres/keys.ts keyChanges) together
 *   with a counter this process moves whenever it writes a business or a key itself.
 * - `pages`: rendered list pages (http/rendered.ts). Version: the business's data version, a
 *   counter in `business_totals` that database triggers move in the same transaction as any
 *   change to the business's dues or contacts, whatever process or code path makes it
 *   (migration 2026-11-23T01-00_business-data-version): no write path can forget to invalidate.
 * - `dataVersions`: on SQLite, each business's data version as last read (businesses/data-version.ts).
 *   Version: the store's change stamp, which moves on every commit of any process.
 * - `manySince`: which (business, since) pairs match 1,000+ changed dues (transactions/list.ts). No
 *   version: the answer only ever turns from no to yes, and only yes is kept.
 * - `contacts`: on PostgreSQL, the contacts a create for a known contact was written for
 *   (transactions/create.ts createAlone). Version: none (always CONTACT_VERSION): the create's
 *   one statement writes only while the contact is still the business's with the kept name and
 *   phone, so an entry made stale by a change, an erase or a merge (in any process) writes
 *   nothing, is dropped and read again.
 * - `keyUses`: when this process last wrote each API key's `last_used_at` (businesses/keys.ts
 *   KeyUseTracker), so a key in use is written once a minute, not per request. No version.
 *
 * Every entry is kept with the version of what it was read from, and served only while the
 * version read now is the same. Read the version *before* reading what is stored with it: data
 * read later can only be newer than that version, and a newer version already marks it stale.
 * Each namespace keeps its entries within a weight budget, the least recently used going first.
 */
export type Version = number | string;

export interface CacheNamespace<V> {
  /** The value kept for `key` if it was kept with `version`; an entry of another version is dropped. */
  get(key: string, version: Version): V | undefined;
  set(key: string, version: Version, value: V): void;
  /** Drops what is kept for `key`, if anything. */
  delete(key: string): void;
  readonly size: number;
  /** The weight of what is kept (bytes for pages, entries for keys). */
  readonly weight: number;
}

interface Entry<V> {
  version: Version;
  value: V;
  weight: number;
}

class LruNamespace<V> implements CacheNamespace<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #maxWeight: number;
  readonly #weigh: (key: string, value: V) => number;
  #weight = 0;

  constructor(maxWeight: number, weigh: (key: string, value: V) => number) {
    this.#maxWeight = maxWeight;
    this.#weigh = weigh;
  }

  get size(): number {
    return this.#entries.size;
  }

  get weight(): number {
    return this.#weight;
  }

  get(key: string, version: Version): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.version !== version) {
      this.#weight -= entry.weight;
      return undefined;
    }
    // most recently used last
    this.#entries.set(key, entry);
    return entry.value;
  }

  delete(key: string): void {
    const old = this.#entries.get(key);
    if (old === undefined) return;
    this.#entries.delete(key);
    this.#weight -= old.weight;
  }

  set(key: string, version: Version, value: V): void {
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#entries.delete(key);
      this.#weight -= old.weight;
    }
    const weight = this.#weigh(key, value);
    if (weight > this.#maxWeight) return;
    for (const [oldestKey, oldest] of this.#entries) {
      if (this.#weight + weight <= this.#maxWeight) break;
      this.#entries.delete(oldestKey);
      this.#weight -= oldest.weight;
    }
    this.#entries.set(key, { version, value, weight });
    this.#weight += weight;
  }
}

export const cache = {
  /** A namespace holding at most `maxEntries` values. */
  byCount<V>(maxEntries: number): CacheNamespace<V> {
    return new LruNamespace<V>(maxEntries, () => 1);
  },
  /** A namespace of strings (rendered bodies) holding at most `maxBytes` of keys and bodies. */
  byLength(maxBytes: number): CacheNamespace<string> {
    return new LruNamespace<string>(maxBytes, (key, value) => key.length + value.length);
  },
};

/**
 * A cache key made of everything a value depends on besides its version: the parts in a fixed
 * order, objects (a validated query) with their keys sorted, so a parameter added to a route's
 * query schema is in the key without anyone remembering to add it.
 */
export function cacheKey(...parts: unknown[]): string {
  // Only objects need their keys sorted: parts without any (ids, a date) skip the replacer, the
  // same text for a fraction of the cost (it runs on every rendered read).
  if (parts.every((part) => part === null || typeof part !== 'object')) return JSON.stringify(parts);
  return JSON.stringify(parts, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
