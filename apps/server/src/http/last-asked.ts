import { hashes } from './frequency-sketch.js';

/**
 * When keys were last asked for, approximately, in fixed memory: a table of request numbers, each key writing
 * the slots its hashes pick (as the frequency sketch picks its counters). Slots only move forward, and all of a
 * key's slots were written at its last request, so the oldest of them is that request or a later one: the
 * distance it gives is never more than the truth. It is less only when every one of the key's slots was written
 * since by other keys: with 128 slots per answer the cache holds (1 MB for 2,000), about one request in 200 of
 * a round robin over ten times as many URLs as the cache holds.
 */
export class LastAsked {
  private readonly asked: Uint32Array;
  private readonly mask: number;

  /** `capacity`: how many keys the cache it advises holds. */
  constructor(capacity: number) {
    let width = 64;
    while (width < capacity * 128) width *= 2;
    this.asked = new Uint32Array(width);
    this.mask = width - 1;
  }

  /**
   * Records that `key` is asked for in request number `now`, and says how many requests before it was last
   * asked for (and recorded); `Infinity` if it never was. One hash for both, as the cache needs both on every
   * miss. Request numbers are counted modulo 2^32: a distance is right as long as it is shorter than that.
   */
  swap(key: string, now: number): number {
    const [h1, h2] = hashes(key);
    // Never 0, which marks a slot never written (request numbers are stored plus one).
    const stored = (now + 1) >>> 0 || 1;
    // The oldest slot is the nearest to the key's own last request: the longest distance.
    let longest = 0;
    for (let i = 0; i < depth; i++) {
      const index = (h1 + i * h2) & this.mask;
      const slot = this.asked[index]!;
      longest = slot === 0 ? Infinity : Math.max(longest, (stored - slot) >>> 0);
      this.asked[index] = stored;
    }
    return longest;
  }
}

const depth = 4;
