import type { CounterStore, WindowCount } from './interface.js';

/**
 * Counters in this process, answered synchronously (a quota counted per request costs no promise). Keys live
 * in two generations, as in express-rate-limit's own memory store: each window the older generation is
 * dropped, so memory follows the callers of the last two windows and nothing else.
 */
export class MemoryCounterStore implements CounterStore {
  private current = new Map<string, WindowCount>();
  private previous = new Map<string, WindowCount>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => {
      this.previous = this.current;
      this.current = new Map();
    }, windowMs).unref();
  }

  increment(key: string): WindowCount {
    const now = this.now();
    let count = this.current.get(key);
    if (count === undefined) {
      count = this.previous.get(key);
      if (count !== undefined) this.previous.delete(key);
    }
    if (count === undefined || count.resetsAt <= now) count = { hits: 0, resetsAt: now + this.windowMs };
    count.hits++;
    this.current.set(key, count);
    return count;
  }

  get(key: string): WindowCount | undefined {
    const count = this.current.get(key) ?? this.previous.get(key);
    return count === undefined || count.resetsAt <= this.now() ? undefined : { ...count };
  }

  reset(key: string): void {
    this.current.delete(key);
    this.previous.delete(key);
  }

  /** Stops the generation timer. */
  close(): void {
    clearInterval(this.timer);
  }
}
