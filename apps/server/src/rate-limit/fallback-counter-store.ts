import { CounterStoreUnavailableError, type CounterStore, type WindowCount } from './interface.js';
import type { MemoryCounterStore } from './memory-counter-store.js';

/**
 * A shared store (Redis) with this process's memory behind it: each call goes to the shared store, and to
 * memory when the shared one cannot count. The sign-in throttle counts here (issue 30 #4): while Redis is
 * away, each instance still throttles the accounts it sees guessed at, instead of none, as the general rate
 * limits do (they fail open, SPEC §4). Counts made in memory stay there when Redis returns.
 */
export class FallbackCounterStore implements CounterStore {
  constructor(
    private readonly shared: CounterStore,
    private readonly local: MemoryCounterStore,
  ) {}

  increment(key: string): WindowCount | Promise<WindowCount> {
    return this.either((store) => store.increment(key));
  }

  get(key: string): WindowCount | undefined | Promise<WindowCount | undefined> {
    return this.either((store) => store.get(key));
  }

  reset(key: string): void | Promise<void> {
    // Both, so a count made in memory during an outage does not outlive a success once Redis is back.
    this.local.reset(key);
    return this.either((store) => store.reset(key));
  }

  private async either<T>(work: (store: CounterStore) => T | Promise<T>): Promise<T> {
    try {
      return await work(this.shared);
    } catch (error) {
      if (!(error instanceof CounterStoreUnavailableError)) throw error;
      return work(this.local);
    }
  }
}
