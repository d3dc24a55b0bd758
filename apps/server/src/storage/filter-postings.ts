import { releaseFilterParameters, type ReleaseFilterParameter } from '@releases/contract';
import type { FilterKeys, PerFilter } from '../catalogue/filters.js';
import { perFilter } from '../catalogue/filters.js';
import { and, ByteSets } from './byte-sets.js';

/**
 * The filter values of a whole catalogue, in memory: for each value, the releases holding it (their ordinals,
 * ascending), and each release's values. The facets in context of a query (with `q`, over `SearchPostings`'
 * matches) are then a few set operations over arrays, at any catalogue size, instead of an index probe per
 * matching release (hundreds of milliseconds once a filter matches a few hundred thousand releases).
 *
 * About 4 bytes per (release, value) pair: 20 MB for a million releases with five values each. Built from the
 * database for one generation of the catalogue (`catalogue-reads.ts` drops it when the catalogue changes).
 */
export class FilterPostings {
  private constructor(
    /** How many releases there are; ordinals run from 0 below it. */
    readonly releases: number,
    private readonly postings: PerFilter<Map<string, Uint32Array>>,
    /** Every (filter, value), numbered: what `valuesOf` holds. */
    private readonly valueNames: ReleaseFilterParameter[],
    private readonly valueKeys: string[],
    /** Release `o`'s values are `valuesOf[valuesFrom[o]]` to `valuesOf[valuesFrom[o + 1] - 1]`. */
    private readonly valuesFrom: Uint32Array,
    private readonly valuesOf: Uint32Array,
    /** Shared with the rest of the catalogue in memory; its caller resets it (`CatalogueIndex`). */
    private readonly sets: ByteSets,
  ) {}

  /**
   * Each filter's value counts over the releases matching the other filters, and how many match them all
   * (SPEC §3.6), for the filters `filters` chose, among the releases `within` holds (one byte, 0 or 1, per
   * ordinal: a search's matches, `SearchPostings`), or all.
   *
   * The filters not chosen count over the whole query's matches in one pass, each chosen one over the rest of
   * the query's in a pass of its own; a pass walks its matches' own values (a few per release), so a query that
   * matches few releases costs little however common its values are.
   */
  facetsInContext(filters: FilterKeys, within?: Uint8Array): { counts: PerFilter<Map<string, number>>; total: number } {
    const chosen = perFilter((name) => (filters[name].length > 0 ? this.union(name, filters[name]) : undefined));
    const matchingOthers = (except: ReleaseFilterParameter | undefined) => {
      let set = within && this.sets.copy(within);
      for (const name of releaseFilterParameters) {
        const values = chosen[name];
        if (name === except || values === undefined) continue;
        if (set === undefined) set = this.sets.copy(values);
        else and(set, values);
      }
      return set;
    };
    const counts = perFilter(() => new Map<string, number>());
    const all = matchingOthers(undefined);
    const unchosen = releaseFilterParameters.filter((name) => chosen[name] === undefined);
    const passes = [
      { names: unchosen, set: all },
      ...releaseFilterParameters
        .filter((name) => chosen[name] !== undefined)
        .map((name) => ({ names: [name], set: matchingOthers(name) })),
    ];
    for (const { names, set } of passes) {
      if (names.length === 0) continue;
      if (set === undefined) {
        for (const name of names) {
          for (const [key, releases] of this.postings[name]) counts[name].set(key, releases.length);
        }
        continue;
      }
      const counted = new Uint32Array(this.valueKeys.length);
      // Locals, not fields, in the loop over every release: V8 reloads a field after each store to `counted`.
      const { valuesFrom, valuesOf } = this;
      for (let o = 0, n = set.length; o < n; o++) {
        if (set[o] === 0) continue;
        for (let k = valuesFrom[o]!, end = valuesFrom[o + 1]!; k < end; k++) counted[valuesOf[k]!]!++;
      }
      counted.forEach((count, value) => {
        const name = this.valueNames[value]!;
        if (count > 0 && names.includes(name)) counts[name].set(this.valueKeys[value]!, count);
      });
    }
    let total = this.releases;
    if (all !== undefined) {
      total = 0;
      for (const member of all) total += member;
    }
    return { counts, total };
  }

  /** The releases matching every chosen filter (any of its values); undefined when none is chosen. */
  matching(filters: FilterKeys): Uint8Array | undefined {
    let set: Uint8Array | undefined;
    for (const name of releaseFilterParameters) {
      if (filters[name].length === 0) continue;
      const values = this.union(name, filters[name]);
      if (set === undefined) set = values;
      else and(set, values);
    }
    return set;
  }

  /** The releases holding any of `keys` of filter `name`, as one byte (0 or 1) per ordinal. */
  private union(name: ReleaseFilterParameter, keys: readonly string[]): Uint8Array {
    const set = this.sets.take();
    for (const key of keys) for (const ordinal of this.postings[name].get(key) ?? []) set[ordinal] = 1;
    return set;
  }

  /**
   * Collects postings from rows of (release ordinal, filter, value), in any order: `add` each batch as it is
   * read, then `done` with how many releases there are (a release may hold no value at all).
   */
  static builder(): {
    add(rows: Iterable<PostingRow>): void;
    done(releases: number, sets?: ByteSets): FilterPostings;
  } {
    const lists = perFilter(() => new Map<string, number[]>());
    return {
      add(rows) {
        for (const row of rows) {
          const values = lists[row.name];
          let list = values.get(row.value_key);
          if (!list) values.set(row.value_key, (list = []));
          list.push(row.ordinal);
        }
      },
      done(releases, sets = new ByteSets(releases)) {
        const postings = perFilter(
          (name) => new Map([...lists[name]].map(([key, list]) => [key, Uint32Array.from(list)])),
        );
        // Each release's values, by counting first: a prefix sum of how many each holds.
        const valueNames: ReleaseFilterParameter[] = [];
        const valueKeys: string[] = [];
        const valuesFrom = new Uint32Array(releases + 1);
        for (const name of releaseFilterParameters) {
          for (const list of postings[name].values()) for (const ordinal of list) valuesFrom[ordinal + 1]!++;
        }
        for (let o = 0; o < releases; o++) valuesFrom[o + 1]! += valuesFrom[o]!;
        const next = valuesFrom.slice(0, releases);
        const valuesOf = new Uint32Array(valuesFrom[releases]!);
        for (const name of releaseFilterParameters) {
          for (const [key, list] of postings[name]) {
            const value = valueKeys.push(key) - 1;
            valueNames.push(name);
            for (const ordinal of list) valuesOf[next[ordinal]!++] = value;
          }
        }
        return new FilterPostings(releases, postings, valueNames, valueKeys, valuesFrom, valuesOf, sets);
      },
    };
  }
}

export interface PostingRow {
  /** The release's place in the catalogue's order (`CatalogueIndex`), from 0. */
  ordinal: number;
  name: ReleaseFilterParameter;
  value_key: string;
}
