import { describe, expect, it } from 'vitest';
import { BoundedMemory } from './bounded-memory.js';

describe('bounded memory', () => {
  it('keeps at most max entries, forgetting the least recently used first', () => {
    const memory = new BoundedMemory<number>({ max: 2 });
    memory.set('a', 1);
    memory.set('b', 2);
    expect(memory.get('a')).toBe(1);
    memory.set('c', 3);
    expect(memory.get('b')).toBeUndefined();
    expect(memory.get('a')).toBe(1);
    expect(memory.get('c')).toBe(3);
  });

  it('forgets what is older than its time to live, and a value set again starts afresh', () => {
    let now = 0;
    const memory = new BoundedMemory<string>({ max: 5, ttlMs: 1_000, now: () => now });
    memory.set('a', 'first');
    memory.set('b', 'kept');
    now = 900;
    memory.set('b', 'again');
    now = 1_001;
    expect(memory.get('a')).toBeUndefined();
    expect(memory.get('b')).toBe('again');
  });
});
