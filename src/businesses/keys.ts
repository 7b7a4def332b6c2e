import { type CacheNamespace, cache } from '../cache/cache.js';
import type { KeySource } from '../db/schema.js';

/** PRODUCT part 16: what a business (CLI, dashboard) sees of a key; never the key or its hash. */
export interface KeyListing {
  id: string;
  /** the first 12 characters of the key */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  source: KeySource;
}

export const KEY_SOURCES: readonly KeySource[] = ['cli', 'chat', 'dashboard'];

/** At most this many unrevoked keys per business when one is issued over chat. */
export const MAX_ACTIVE_KEYS = 5;

/** `last_used_at` is written at most once a minute per key and process: not a write per request. */
export const KEY_USE_RESOLUTION_MS = 60_000;

/** The `keyUses` namespace keeps no version: a time is what it is. */
const KEY_USES_VERSION = 0;

/**
 * When each key was last written as used, in this process: the `keyUses` namespace of the one
 * cache (cache/cache.ts), no version. A key whose last write is older than KEY_USE_RESOLUTION_MS
 * is due a write; past `maxKeys` the least recently used keys are forgotten (a burst of keys costs
 * one extra write each, never unbounded memory).
 */
export class KeyUseTracker {
  readonly #written: CacheNamespace<number>;

  constructor(maxKeys = 10_000) {
    this.#written = cache.byCount<number>(maxKeys);
  }

  /** True when this use should be written (and records that it will be). */
  due(keyId: string, nowMs: number): boolean {
    const last = this.#written.get(keyId, KEY_USES_VERSION);
    if (last !== undefined && nowMs - last < KEY_USE_RESOLUTION_MS) return false;
    this.#written.set(keyId, KEY_USES_VERSION, nowMs);
    return true;
  }

  /** A write that failed is retried on the key's next use. */
  forget(keyId: string): void {
    this.#written.delete(keyId);
  }
}
