import { describe, expect, it } from 'vitest';
import { LruCache } from './lru-cache.js';

describe('LruCache', () => {
  it('keeps entries that are read and forgets those untouched for a whole generation', () => {
    const cache = new LruCache<string, number>(3);
    cache.set('hot', 0);
    for (let i = 1; i <= 20; i++) {
      cache.set(`cold${i}`, i);
      expect(cache.get('hot')).toBe(0);
      expect(cache.size).toBeLessThanOrEqual(6); // never more than 2 × maxEntries
    }
    expect(cache.get('cold1')).toBeUndefined();
    expect(cache.get('cold20')).toBe(20);
  });

  it('overwrites, deletes and clears in either generation', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2); // rotates: a and b are now the older generation
    cache.set('a', 10);
    expect(cache.get('a')).toBe(10);
    expect(cache.size).toBe(2);
    cache.delete('b');
    expect(cache.get('b')).toBeUndefined();
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('LruCache.deleteWhere', () => {
  it('drops the matching entries of both generations and keeps the rest', () => {
    const cache = new LruCache<string, number>(3);
    cache.set('old-even', 2);
    cache.set('old-odd', 3);
    cache.set('old-odd-too', 7); // rotates: these three are now the older generation
    cache.set('new-even', 4);
    cache.set('new-odd', 5);
    expect(cache.size).toBe(5);
    cache.deleteWhere((value) => value % 2 === 0);
    expect(cache.get('old-even')).toBeUndefined();
    expect(cache.get('new-even')).toBeUndefined();
    expect(cache.get('old-odd')).toBe(3);
    expect(cache.get('new-odd')).toBe(5);
    expect(cache.get('old-odd-too')).toBe(7);
    expect(cache.size).toBe(3);
  });
});
