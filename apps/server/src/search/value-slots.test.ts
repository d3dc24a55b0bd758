import { describe, expect, it } from 'vitest';
import { addAll, emptySet } from './bit-sets.js';
import { ValueSlots } from './value-slots.js';

/** A set of `size` ordinals, as `bit-sets.ts` keeps them. */
function setOf(size: number, holds: (ordinal: number) => boolean): Int32Array {
  const set = emptySet(size);
  addAll(set, Int32Array.from({ length: size }, (_, o) => o).filter(holds));
  return set;
}

/** Each value's releases, from each release's values. */
function postingsOf(size: number, valuesOf: (ordinal: number) => number[]) {
  const lists = new Map<number, number[]>();
  for (let o = 0; o < size; o++) {
    for (const value of valuesOf(o)) {
      let list = lists.get(value);
      if (list === undefined) lists.set(value, (list = []));
      list.push(o);
    }
  }
  return [...lists].map(([value, releases]) => ({ value, releases }));
}

function plainCount(
  size: number,
  values: number,
  valuesOf: (ordinal: number) => number[],
  holds: (o: number) => boolean,
) {
  const counted = new Int32Array(values);
  for (let o = 0; o < size; o++) if (holds(o)) for (const value of valuesOf(o)) counted[value]!++;
  return counted;
}

describe('ValueSlots', () => {
  it('counts as a plain count does, members in every bit of a word included', () => {
    const size = 100;
    const valuesOf = (o: number) => (o % 4 === 0 ? [] : [o % 3, 3 + (o % 2), ...(o % 5 === 0 ? [5] : [])]);
    const slots = ValueSlots.of(size, 6, postingsOf(size, valuesOf));
    expect(slots.width).toBe(3);
    for (const holds of [() => true, (o: number) => o % 7 === 0, (o: number) => o === 31 || o === 63 || o === 99]) {
      expect(slots.count(setOf(size, holds))).toEqual(plainCount(size, 6, valuesOf, holds));
    }
    expect(slots.count(setOf(size, () => false))).toEqual(new Int32Array(6));
  });

  it('is as wide as all but one release in a thousand need, the values of the others past their slots', () => {
    const size = 3000;
    // At most three releases of 3,000 may go past their slots. Four hold more than two values, one too many for
    // a width of two: two hold three, and two hold 300 (which go past a width of three). 400 values in all, more
    // than a byte holds.
    const valuesOf = (o: number) =>
      o === 5 || o === 2047
        ? Array.from({ length: 300 }, (_, i) => 100 + i)
        : o === 1 || o === 1001
          ? [o % 7, 10, 11]
          : [o % 7, 10 + (o % 2)];
    const slots = ValueSlots.of(size, 400, postingsOf(size, valuesOf));
    expect(slots.width).toBe(3);
    for (const holds of [() => true, (o: number) => o % 3 === 2, (o: number) => o === 2047]) {
      expect(slots.count(setOf(size, holds))).toEqual(plainCount(size, 400, valuesOf, holds));
    }
  });

  it('holds a catalogue without values', () => {
    const slots = ValueSlots.of(40, 0, []);
    expect(slots.width).toBe(0);
    expect(slots.count(setOf(40, () => true))).toEqual(new Int32Array(0));
  });
});
