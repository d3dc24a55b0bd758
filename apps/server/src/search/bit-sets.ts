/**
 * Sets of release ordinals as bits (bit `o & 31` of word `o >>> 5` holds ordinal `o`; signed words, which V8
 * keeps as small integers, where unsigned ones above 2^31 are doubles), for the catalogue in
 * memory: at a million releases a set is 125 KB, an intersection 31,250 word operations (about 30 µs), and a
 * walk over its members skips 32 non-members at a time. (One byte per release, as before, made every
 * intersection and every walk a million steps: 1-2 ms each, 10-30 ms a request.)
 *
 * The sets a computation needs are taken from a pool and all given back at its end (`reset`): allocating them
 * per request made V8 count them as external memory and collect the whole heap (the catalogue in memory
 * included: 50-100 ms) every few requests. A computation must not await in between (the pool is shared by
 * every request of the process) nor keep a set past its end.
 */
export class BitSets {
  private readonly free: Int32Array[] = [];
  private readonly taken: Int32Array[] = [];
  /** How many words a set of this pool has. */
  readonly words: number;

  constructor(readonly size: number) {
    this.words = Math.ceil(size / 32);
  }

  /** An empty set. */
  take(): Int32Array {
    const set = this.free.pop()?.fill(0) ?? new Int32Array(this.words);
    this.taken.push(set);
    return set;
  }

  /** A set holding what `set` holds. */
  copy(set: Int32Array): Int32Array {
    const copied = this.free.pop() ?? new Int32Array(this.words);
    copied.set(set);
    this.taken.push(copied);
    return copied;
  }

  /** A set holding every ordinal below `size` that `set` does not hold. */
  complement(set: Int32Array): Int32Array {
    const result = this.copy(set);
    for (let w = 0; w < result.length; w++) result[w] = ~result[w]!;
    const spare = this.words * 32 - this.size;
    if (spare > 0) result[this.words - 1]! &= 0xffffffff >>> spare;
    return result;
  }

  /** Every set taken is free again. */
  reset(): void {
    for (const set of this.taken) this.free.push(set);
    this.taken.length = 0;
  }
}

/** A set of `size` ordinals holding none, outside any pool (for sets kept with the catalogue). */
export function emptySet(size: number): Int32Array {
  return new Int32Array(Math.ceil(size / 32));
}

export function has(set: Int32Array, ordinal: number): boolean {
  return ((set[ordinal >>> 5]! >>> (ordinal & 31)) & 1) === 1;
}

/** Adds every ordinal of `ordinals[from..to)` to `set`. */
export function addAll(set: Int32Array, ordinals: Int32Array, from = 0, to = ordinals.length): void {
  for (let i = from; i < to; i++) {
    const ordinal = ordinals[i]!;
    set[ordinal >>> 5]! |= 1 << (ordinal & 31);
  }
}

/** `set` becomes the ordinals in both `set` and `other`. */
export function and(set: Int32Array, other: Int32Array): void {
  for (let w = 0; w < set.length; w++) set[w]! &= other[w]!;
}

/** `set` becomes the ordinals in `set` but not in `other`. */
export function andNot(set: Int32Array, other: Int32Array): void {
  for (let w = 0; w < set.length; w++) set[w]! &= ~other[w]!;
}

/** `set` becomes the ordinals in `set` or in `other`. */
export function or(set: Int32Array, other: Int32Array): void {
  for (let w = 0; w < set.length; w++) set[w]! |= other[w]!;
}

/** How many ordinals `set` holds. */
export function count(set: Int32Array): number {
  let total = 0;
  for (let w = 0; w < set.length; w++) {
    const v = set[w]!;
    if (v !== 0) total += bitsIn(v);
  }
  return total;
}

/** How many ordinals both `set` and `other` hold. */
export function countBoth(set: Int32Array, other: Int32Array): number {
  let total = 0;
  for (let w = 0; w < set.length; w++) {
    const v = set[w]! & other[w]!;
    if (v !== 0) total += bitsIn(v);
  }
  return total;
}

function bitsIn(word: number): number {
  let v = (word - ((word >>> 1) & 0x55555555)) | 0;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The greatest ordinal of `set` at or below `from`, or -1 when there is none. */
export function previousMember(set: Int32Array, from: number): number {
  if (from < 0) return -1;
  let w = from >>> 5;
  if (w >= set.length) {
    w = set.length - 1;
    from = w * 32 + 31;
  }
  let word = set[w]! & (0xffffffff >>> (31 - (from & 31)));
  while (word === 0) {
    if (--w < 0) return -1;
    word = set[w]!;
  }
  return w * 32 + 31 - Math.clz32(word);
}

/** The least ordinal of `set` at or above `from`, or -1 when there is none. */
export function nextMember(set: Int32Array, from: number): number {
  let w = from >>> 5;
  if (w >= set.length) return -1;
  let word = set[w]! & (0xffffffff << (from & 31));
  while (word === 0) {
    if (++w >= set.length) return -1;
    word = set[w]!;
  }
  return w * 32 + 31 - Math.clz32(word & -word);
}

/** Lists end to end in one array, list `i` at `all[from[i]..from[i + 1])`. */
export function concatenated(lists: number[][]): { all: Int32Array; from: Int32Array } {
  const from = new Int32Array(lists.length + 1);
  lists.forEach((list, i) => (from[i + 1] = from[i]! + list.length));
  const all = new Int32Array(from[lists.length]!);
  lists.forEach((list, i) => all.set(list, from[i]));
  return { all, from };
}
