/**
 * What the app keeps in memory between screens (a list per history entry, the facets per query): at most
 * `max` entries, the least recently used forgotten first, and none older than `ttlMs`. Memory only: nothing
 * about browsing goes to storage.
 */
export class BoundedMemory<V> {
  readonly #entries = new Map<string, { value: V; at: number }>();
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor({ max, ttlMs = Infinity, now = Date.now }: { max: number; ttlMs?: number; now?: () => number }) {
    this.#max = max;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (this.#now() - entry.at > this.#ttlMs) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, at: this.#now() });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#max) break;
      this.#entries.delete(oldest);
    }
  }
}
