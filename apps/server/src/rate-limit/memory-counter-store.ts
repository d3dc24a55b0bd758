import { BoundedCache } from '../kernel/bounded-cache.js';
import type { CounterStore, WindowCount } from './interface.js';

/**
 * Keys counted at once, at most: past it the least recently counted key is forgotten (its next hit starts a
 * new window). About 100 bytes each, so a flood of made-up addresses costs at most some 20 MB, where an
 * unbounded map grew for as long as the window lasted.
 */
const maxCountedKeys = 200_000;

/**
 * Counters in this process, answered synchronously (a quota counted per request costs no promise). Each key's
 * count lives until its window ends.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly counts: BoundedCache<string, WindowCount>;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.counts = new BoundedCache({ max: maxCountedKeys, ttlMs: windowMs, now });
  }

  increment(key: string): WindowCount {
    const now = this.now();
    let count = this.counts.get(key);
    if (count === undefined || count.resetsAt <= now) {
      count = { hits: 0, resetsAt: now + this.windowMs };
      this.counts.set(key, count);
    }
    count.hits++;
    return count;
  }

  get(key: string): WindowCount | undefined {
    const count = this.counts.peek(key);
    return count === undefined || count.resetsAt <= this.now() ? undefined : { ...count };
  }

  reset(key: string): void {
    this.counts.delete(key);
  }
}
