import { describe, expect, it } from 'vitest';
import { addAll, and, andNot, BitSets, count, has, nextMember, or, previousMember } from './bit-sets.js';

/** A set of `size` ordinals holding `members`, and the members it reports, walked both ways. */
function members(set: Int32Array, size: number): { up: number[]; down: number[] } {
  const up: number[] = [];
  for (let o = nextMember(set, 0); o >= 0; o = nextMember(set, o + 1)) up.push(o);
  const down: number[] = [];
  for (let o = previousMember(set, size - 1); o >= 0; o = previousMember(set, o - 1)) down.push(o);
  return { up, down };
}

describe('bit sets', () => {
  // Sizes around word boundaries, and members on them (0, 31, 32, the last).
  it.each([1, 31, 32, 33, 64, 100, 1000])('walk, count and complement exactly their members (%i ordinals)', (size) => {
    const sets = new BitSets(size);
    const set = sets.take();
    const expected = [...new Set([0, 31, 32, 63, 64, size - 1, Math.floor(size / 3)].filter((o) => o < size))].sort(
      (a, b) => a - b,
    );
    addAll(set, Int32Array.from(expected));
    expect(members(set, size)).toEqual({ up: expected, down: [...expected].reverse() });
    expect(count(set)).toBe(expected.length);
    expect(expected.every((o) => has(set, o))).toBe(true);
    const others = sets.complement(set);
    expect(count(others)).toBe(size - expected.length);
    expect(members(others, size).up).toEqual([...Array(size).keys()].filter((o) => !expected.includes(o)));
    // From inside: the nearest member on each side, or -1.
    expect(previousMember(set, size - 2)).toBe(expected.filter((o) => o <= size - 2).pop() ?? -1);
    expect(nextMember(set, 1)).toBe(expected.find((o) => o >= 1) ?? -1);
    expect(previousMember(set, -1)).toBe(-1);
    expect(nextMember(set, size + 40)).toBe(-1);
  });

  it('intersect, subtract and unite', () => {
    const sets = new BitSets(70);
    const [a, b] = [sets.take(), sets.take()];
    addAll(a, Int32Array.from([1, 5, 33, 69]));
    addAll(b, Int32Array.from([5, 40, 69]));
    const both = sets.copy(a);
    and(both, b);
    const onlyA = sets.copy(a);
    andNot(onlyA, b);
    const either = sets.copy(a);
    or(either, b);
    expect(members(both, 70).up).toEqual([5, 69]);
    expect(members(onlyA, 70).up).toEqual([1, 33]);
    expect(members(either, 70).up).toEqual([1, 5, 33, 40, 69]);
  });

  it('hand out empty sets again after a reset', () => {
    const sets = new BitSets(64);
    addAll(sets.take(), Int32Array.of(3));
    sets.reset();
    expect(count(sets.take())).toBe(0);
  });
});
