/**
 * Sets of releases as one byte (0 or 1) per ordinal, reused: a query over a million releases needs a few
 * megabyte-sized sets, and allocating them per request made V8 count them as external memory and run a full
 * garbage collection of the whole heap (the catalogue in memory included: 50-100 ms) every few requests.
 *
 * A computation takes what it needs and gives everything back at its end (`reset`); it must not await in
 * between (the sets are shared by every request of the process) nor keep a set past its end.
 */
export class ByteSets {
  private readonly free: Uint8Array[] = [];
  private readonly taken: Uint8Array[] = [];

  constructor(private readonly size: number) {}

  /** An empty set. */
  take(): Uint8Array {
    const set = this.free.pop()?.fill(0) ?? new Uint8Array(this.size);
    this.taken.push(set);
    return set;
  }

  /** A set holding what `set` holds. */
  copy(set: Uint8Array): Uint8Array {
    const copied = this.free.pop() ?? new Uint8Array(this.size);
    copied.set(set);
    this.taken.push(copied);
    return copied;
  }

  /** Every set taken is free again. */
  reset(): void {
    for (const set of this.taken) this.free.push(set);
    this.taken.length = 0;
  }
}

/** `set` becomes the releases in both `set` and `other`. */
export function and(set: Uint8Array, other: Uint8Array): void {
  for (let i = 0; i < set.length; i++) set[i]! &= other[i]!;
}
