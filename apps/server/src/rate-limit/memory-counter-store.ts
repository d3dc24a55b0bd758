import { MemoryStore, type Options } from 'express-rate-limit';
import type { CounterStore, WindowCount } from './interface.js';

/**
 * Counters in this process: express-rate-limit's own store, which keeps two generations of keys and drops
 * the older each window, so memory follows the callers of the last two windows and nothing else.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly store = new MemoryStore();

  constructor(private readonly windowMs: number) {
    // The store reads only the window from the limiter's options.
    this.store.init({ windowMs } as Options);
  }

  async increment(key: string): Promise<WindowCount> {
    const { totalHits, resetTime } = await this.store.increment(key);
    return { hits: totalHits, resetsAt: resetTime?.getTime() ?? Date.now() + this.windowMs };
  }

  async get(key: string): Promise<WindowCount | undefined> {
    const info = await this.store.get(key);
    if (!info) return undefined;
    return { hits: info.totalHits, resetsAt: info.resetTime?.getTime() ?? Date.now() + this.windowMs };
  }

  reset(key: string): Promise<void> {
    return this.store.resetKey(key);
  }

  /** Stops the store's window timer. */
  close(): void {
    this.store.shutdown();
  }
}
