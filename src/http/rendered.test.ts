import { describe, expect, it } from 'vitest';
import { RenderedCache } from './rendered.js';

describe('RenderedCache', () => {
  it('serves a page only while its version stands, and drops it once the version moves', () => {
    const cache = new RenderedCache(1000);
    cache.set('a', 7, '{"x":1}');
    expect(cache.get('a', 7)).toBe('{"x":1}');
    expect(cache.get('a', 8)).toBeUndefined();
    // dropped, not kept for an older version
    expect(cache.get('a', 7)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
    expect(cache.stats).toEqual({ hits: 1, misses: 2 });
  });

  it('keeps its bodies within maxBytes, dropping the least recently used first', () => {
    const body = 'x'.repeat(99);
    const cache = new RenderedCache(300);
    cache.set('a', 1, body);
    cache.set('b', 1, body);
    cache.set('c', 1, body);
    expect(cache.bytes).toBe(300);
    expect(cache.get('a', 1)).toBe(body);
    cache.set('d', 1, body);
    expect(cache.bytes).toBe(300);
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBe(body);
    expect(cache.get('c', 1)).toBe(body);
    expect(cache.get('d', 1)).toBe(body);
  });

  it('replaces a key in place and never keeps a body larger than the whole budget', () => {
    const cache = new RenderedCache(50);
    cache.set('a', 1, 'one');
    cache.set('a', 2, 'three');
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(6);
    expect(cache.get('a', 2)).toBe('three');
    cache.set('big', 1, 'y'.repeat(60));
    expect(cache.get('big', 1)).toBeUndefined();
    expect(cache.get('a', 2)).toBe('three');
  });
});
