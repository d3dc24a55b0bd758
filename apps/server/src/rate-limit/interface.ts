/** A key's count in its current window. */
export interface WindowCount {
  /** Hits counted in the window, this one included. */
  hits: number;
  /** When the window ends and the count starts over (epoch milliseconds). */
  resetsAt: number;
}

/**
 * Fixed-window hit counters, by key: kept in this process (`memory-counter-store.ts`) or shared by every
 * instance through Redis (`redis-counter-store.ts`). Quotas (`quotas.ts`) are counted in one.
 */
export interface CounterStore {
  /**
   * Counts one more hit for `key`: at once in memory, or a promise from a shared store, which rejects with
   * `CounterStoreUnavailableError` when it cannot count.
   */
  increment(key: string): WindowCount | Promise<WindowCount>;
  /** `key`'s count in its current window without counting a hit; undefined when it has none. */
  get(key: string): WindowCount | undefined | Promise<WindowCount | undefined>;
  /** Starts `key`'s count over. */
  reset(key: string): void | Promise<void>;
}

/** A shared store could not count (Redis away or slow): the request is served without the limit (SPEC §4). */
export class CounterStoreUnavailableError extends Error {
  override readonly name = 'CounterStoreUnavailableError';
}
