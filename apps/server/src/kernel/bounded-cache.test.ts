import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps at most max entries, evicting the least recently used', () => {
    const cache = new BoundedCache<string, number>({ max: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3);
    expect(cache.has('b')).toBe(false);
    expect([cache.get('a'), cache.get('c'), cache.size]).toEqual([1, 3, 2]);
  });

  it('peek does not make an entry recently used', () => {
    const cache = new BoundedCache<string, number>({ max: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.peek('a')).toBe(1);
    expect(cache.leastRecentKey()).toBe('a');
    cache.set('c', 3);
    expect(cache.has('a')).toBe(false);
  });

  it('never returns an expired entry, on its own clock, with a shorter life per entry', () => {
    let now = 1_000;
    const cache = new BoundedCache<string, string>({ max: 10, ttlMs: 100, now: () => now });
    cache.set('long', 'x');
    cache.set('short', 'y', { ttlMs: 10 });
    now += 11;
    expect([cache.get('long'), cache.get('short')]).toEqual(['x', undefined]);
    now += 90;
    expect(cache.get('long')).toBeUndefined();
    expect(cache.peek('long')).toBeUndefined();
  });

  it('bounds the entries by weight, and says whether one more fits', () => {
    const cache = new BoundedCache<string, string>({ max: 10, maxSize: 10, sizeOf: (value) => value.length });
    cache.set('a', 'xxxx');
    cache.set('b', 'yyyy');
    expect(cache.weight).toBe(8);
    expect(cache.hasRoomFor(2)).toBe(true);
    expect(cache.hasRoomFor(3)).toBe(false);
    cache.set('c', 'zzzz');
    expect(cache.has('a')).toBe(false);
    expect(cache.weight).toBe(8);
  });

  it('without a weight bound, only the count limits room', () => {
    const cache = new BoundedCache<string, number>({ max: 1 });
    expect(cache.hasRoomFor(1_000_000)).toBe(true);
    cache.set('a', 1);
    expect(cache.hasRoomFor(0)).toBe(false);
  });

  it('makes an absent entry once with getOrSet, and deletes what a predicate picks', () => {
    const cache = new BoundedCache<string, number>({ max: 10 });
    let made = 0;
    expect(cache.getOrSet('a', () => ++made)).toBe(1);
    expect(cache.getOrSet('a', () => ++made)).toBe(1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.deleteWhere((value) => value >= 2)).toBe(2);
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, false]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
