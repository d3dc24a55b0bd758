/**
 * How often keys were asked for lately, approximately, in fixed memory: a count-min sketch of small counters
 * (TinyLFU's, as in Caffeine and Ristretto). Each key has four counters picked by hashing; its estimate is the
 * smallest, so collisions can only make a key look more frequent, never less. Counters stop at 15, and after
 * `sampleSize` increments every counter is halved, so old popularity fades and the sketch follows the
 * workload as it changes.
 */
export class FrequencySketch {
  private readonly counters: Uint8Array;
  private readonly mask: number;
  private readonly sampleSize: number;
  private additions = 0;

  /** `capacity`: how many keys the cache it advises holds. */
  constructor(capacity: number) {
    // Enough counters that a cache's working set rarely collides: the next power of two over 8 per entry.
    let width = 64;
    while (width < capacity * 8) width *= 2;
    this.counters = new Uint8Array(width);
    this.mask = width - 1;
    this.sampleSize = capacity * 10;
  }

  /** Counts one request for `key`. */
  increment(key: string): void {
    const [h1, h2] = hashes(key);
    const before = this.estimateFrom(h1, h2);
    if (before >= maxCount) return;
    // Conservative update: only the counters at the minimum move, which keeps over-counting down.
    for (let i = 0; i < depth; i++) {
      const index = (h1 + i * h2) & this.mask;
      if (this.counters[index] === before) this.counters[index] = before + 1;
    }
    if (++this.additions >= this.sampleSize) this.halve();
  }

  /** How often `key` was asked for lately (0 to 15), never less than the truth since the last halving. */
  frequency(key: string): number {
    const [h1, h2] = hashes(key);
    return this.estimateFrom(h1, h2);
  }

  private estimateFrom(h1: number, h2: number): number {
    let least = maxCount;
    for (let i = 0; i < depth; i++) least = Math.min(least, this.counters[(h1 + i * h2) & this.mask]!);
    return least;
  }

  private halve(): void {
    for (let i = 0; i < this.counters.length; i++) this.counters[i] = this.counters[i]! >> 1;
    this.additions = 0;
  }
}

const depth = 4;
const maxCount = 15;

/** Two 32-bit FNV-1a hashes of a string (the second with another basis), for double hashing. */
export function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  // An odd step, so the four probes never land on the same counter.
  return [a >>> 0, (b >>> 0) | 1];
}
