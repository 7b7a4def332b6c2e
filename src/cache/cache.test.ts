import { describe, expect, it } from 'vitest';
import { cache, cacheKey } from './cache.js';

describe('cache namespaces', () => {
  it('serve a value only while its version stands, and drop it once the version moves', () => {
    const pages = cache.byLength(1000);
    pages.set('a', 7, '{"x":1}');
    expect(pages.get('a', 7)).toBe('{"x":1}');
    expect(pages.get('a', 8)).toBeUndefined();
    // dropped, not kept for an older version
    expect(pages.get('a', 7)).toBeUndefined();
    expect(pages.size).toBe(0);
    expect(pages.weight).toBe(0);
  });

  it('drop one key on delete, with its weight, and leave the others', () => {
    const contacts = cache.byCount<string>(10);
    contacts.set('a', 0, 'Asha');
    contacts.set('b', 0, 'Bala');
    contacts.delete('a');
    contacts.delete('missing');
    expect(contacts.get('a', 0)).toBeUndefined();
    expect(contacts.get('b', 0)).toBe('Bala');
    expect(contacts.size).toBe(1);
    expect(contacts.weight).toBe(1);
  });

  it('keep within their byte budget, dropping the least recently used first', () => {
    const body = 'x'.repeat(99);
    const pages = cache.byLength(300);
    pages.set('a', 1, body);
    pages.set('b', 1, body);
    pages.set('c', 1, body);
    expect(pages.weight).toBe(300);
    expect(pages.get('a', 1)).toBe(body);
    pages.set('d', 1, body);
    expect(pages.weight).toBe(300);
    expect(pages.get('b', 1)).toBeUndefined();
    expect([pages.get('a', 1), pages.get('c', 1), pages.get('d', 1)]).toEqual([body, body, body]);
  });

  it('replace a key in place and never keep a value heavier than the whole budget', () => {
    const pages = cache.byLength(50);
    pages.set('a', 1, 'one');
    pages.set('a', 2, 'three');
    expect(pages.size).toBe(1);
    expect(pages.weight).toBe(6);
    expect(pages.get('a', 2)).toBe('three');
    pages.set('big', 1, 'y'.repeat(60));
    expect(pages.get('big', 1)).toBeUndefined();
    expect(pages.get('a', 2)).toBe('three');
  });

  it('hold at most maxEntries values when counted', () => {
    const keys = cache.byCount<number>(2);
    keys.set('a', '1:0', 1);
    keys.set('b', '1:0', 2);
    keys.set('c', '1:0', 3);
    expect([keys.get('a', '1:0'), keys.get('b', '1:0'), keys.get('c', '1:0')]).toEqual([undefined, 2, 3]);
  });
});

describe('cacheKey', () => {
  it('is the same whatever the order of a query object, and differs for any value or added parameter', () => {
    const key = cacheKey('biz', '2026-11-24', { status: 'overdue', limit: 50 });
    expect(cacheKey('biz', '2026-11-24', { limit: 50, status: 'overdue' })).toBe(key);
    expect(cacheKey('biz', '2026-11-24', { limit: 50, status: 'pending' })).not.toBe(key);
    expect(cacheKey('biz', '2026-11-24', { limit: 50, status: 'overdue', sort: 'due_date' })).not.toBe(key);
    expect(cacheKey('other', '2026-11-24', { status: 'overdue', limit: 50 })).not.toBe(key);
  });
});
