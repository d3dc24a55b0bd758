import { BoundedCache } from '../kernel/bounded-cache.js';
import type { CounterStore, WindowCount } from './interface.js';

/**
 * Keys counted at once, at most, by default: past it the least recently counted key is forgotten (its next hit
 * starts a new window), where an unbounded map grew for as long as the window lasted under a flood of made-up
 * addresses. The cache sets its room aside when it is made (about 40 bytes a key): 50,000 keys are 2 MB.
 */
const defaultMaxKeys = 50_000;

/**
 * Counters in this process, answered synchronously (a quota counted per request costs no promise). Each key's
 * count lives until its window ends.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly counts: BoundedCache<string, WindowCount>;
  private readonly now: () => number;

  constructor(
    private readonly windowMs: number,
    options: { now?: () => number; maxKeys?: number } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.counts = new BoundedCache({ max: options.maxKeys ?? defaultMaxKeys, ttlMs: windowMs, now: this.now });
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
