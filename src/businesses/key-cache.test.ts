import { describe, expect, it } from 'vitest';
import { KeyCache } from './key-cache.js';

describe('KeyCache', () => {
  it('keeps entries until the store reports another connection committed', () => {
    let version = 1;
    const cache = new KeyCache<string>(() => version);
    cache.set('k', 'v', cache.generation);
    expect(cache.get('k')).toBe('v');
    version = 2;
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', 'v2', cache.generation);
    expect(cache.get('k')).toBe('v2');
  });

  it('drops an answer read before an invalidation', () => {
    const cache = new KeyCache<string>(() => 1);
    const before = cache.generation;
    cache.invalidate();
    cache.set('k', 'stale', before);
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', 'fresh', cache.generation);
    expect(cache.get('k')).toBe('fresh');
    cache.invalidate();
    expect(cache.get('k')).toBeUndefined();
  });

  it('holds at most `max` keys, dropping the oldest', () => {
    const cache = new KeyCache<number>(() => 1, 2);
    cache.set('a', 1, cache.generation);
    cache.set('b', 2, cache.generation);
    cache.set('c', 3, cache.generation);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
  });
});
