import { releaseFilterParameters, type ReleaseFilterParameter } from '@releases/contract';
import { combinePasses, facetPasses, type PassCount } from '../catalogue/facets.js';
import { perFilter, type FilterKeys, type PerFilter } from '../catalogue/filters.js';
import { addAll, and, BitSets, count, countBoth, emptySet, has, or } from './bit-sets.js';
import { BoundedCache } from '../kernel/bounded-cache.js';
import { ValueSlots } from './value-slots.js';

/**
 * The filter values of a whole catalogue, in memory: for each value, the releases holding it, and each
 * release's values. The facets in context of a query (with `q`, over `SearchPostings`' matches) are then a
 * walk over the query's matches, at any catalogue size, instead of an index probe per matching release
 * (hundreds of milliseconds once a filter matches a few hundred thousand releases).
 *
 * A value's releases are a set (`bit-sets.ts`) when it is common, where the set is the smaller (a value of more
 * than one release in 32), else a list of ordinals. Each release's values are value numbers in slots of a fixed
 * width (`ValueSlots`): a byte each while the catalogue has fewer than 255 values. At a million synthetic
 * releases with three to eight values each, 16 MB in all (8 MB of slots, 8 MB of sets).
 */
export class FilterPostings {
  private constructor(
    /** How many releases there are; ordinals run from 0 below it. */
    readonly releases: number,
    /** Each filter's values: their numbers, by key. */
    private readonly numbers: PerFilter<Map<string, number>>,
    /** By value number: its filter, its key, its releases (`dense[v]`: as a set, else a list), how many. */
    private readonly valueNames: ReleaseFilterParameter[],
    private readonly valueKeys: string[],
    private readonly valueReleases: Int32Array[],
    private readonly dense: boolean[],
    private readonly valueCounts: Int32Array,
    /** Each release's values (`ValueSlots`). */
    private readonly slots: ValueSlots,
    /** Shared with the rest of the catalogue in memory; its caller resets it (`CatalogueIndex`). */
    private readonly sets: BitSets,
  ) {
    this.intersectionCost = perFilter((name) => {
      let cost = 0;
      for (const value of numbers[name].values()) cost += dense[value] ? sets.words : valueReleases[value]!.length;
      return cost;
    });
  }

  /**
   * Each filter's value counts over the releases matching the other filters, and how many match them all
   * (SPEC §3.6), for the filters `filters` chose, among the releases a search matched (`search.matches`, from
   * `SearchPostings`; `search.key` names them), or all.
   *
   * The passes are those `catalogue/facets.ts` says: the filters not chosen over the whole query's matches,
   * each chosen one over the rest of the query's. A pass here walks its matches' own values (a few per release), or, when it
   * matches more than half the catalogue, the other releases' values, taken from the catalogue's counts: so a
   * pass costs at most half the catalogue's values, and a query matching few releases costs little however
   * common its values are. Passes are kept (`passesKept`): ticking one genre after another under a chosen voice
   * bank counts the genres over that bank once.
   */
  facetsInContext(
    filters: FilterKeys,
    search?: { key: string; matches: () => Int32Array },
  ): { counts: PerFilter<Map<string, number>>; total: number } {
    let sets: { within: Int32Array | undefined; chosen: PerFilter<Int32Array | undefined> } | undefined;
    const matchingOthers = (except: ReleaseFilterParameter | undefined) => {
      sets ??= {
        within: search?.matches(),
        chosen: perFilter((name) => (filters[name].length > 0 ? this.union(name, filters[name]) : undefined)),
      };
      let set = sets.within && this.sets.copy(sets.within);
      for (const name of releaseFilterParameters) {
        const values = sets.chosen[name];
        if (name === except || values === undefined) continue;
        if (set === undefined) set = this.sets.copy(values);
        else and(set, values);
      }
      return set;
    };
    const pass = (names: ReleaseFilterParameter[], except: ReleaseFilterParameter | undefined): Pass => {
      const key = [
        search?.key ?? '',
        names.join(),
        ...releaseFilterParameters.map((name) => (name === except ? '' : [...filters[name]].sort().join('\u0001'))),
      ].join('\u0000');
      return this.passes.getOrSet(key, () => {
        const set = matchingOthers(except);
        return set === undefined
          ? { counted: this.valueCounts, total: this.releases }
          : { counted: names.length > 0 ? this.countValues(set, names) : new Int32Array(0), total: count(set) };
      });
    };
    const passes = facetPasses(filters);
    return combinePasses(
      passes,
      passes.map(({ filters: names, except }) => {
        const { counted, total } = pass(names, except);
        const counts: PassCount['counts'] = {};
        for (const name of names) counts[name] = new Map();
        counted.forEach((n, value) => {
          if (n > 0) counts[this.valueNames[value]!]?.set(this.valueKeys[value]!, n);
        });
        return { counts, total };
      }),
    );
  }

  /** Passes of facets in context already counted (`facetsInContext`). */
  private readonly passes = new BoundedCache<string, Pass>({ max: passesKept });

  /**
   * How many releases of `set` hold each value of the filters `names`, by value number, the cheaper of two ways:
   * walking the set's members (or the others', when it holds more than half) and reading their values' slots, or
   * intersecting the set with each value's releases (for a filter of few common values, such as languages, over
   * many matches).
   */
  private countValues(set: Int32Array, names: readonly ReleaseFilterParameter[]): Int32Array {
    const members = count(set);
    // A slot read counts as one word intersected. Timing both ways on every pass that the bench's facets URLs
    // count at a million synthetic releases, weights from 0.25 to 2 gave the same total within 3 % (2.18-2.25 s,
    // against 2.05 s taking the faster way every time).
    const walked = Math.min(members, this.releases - members) * this.slots.width;
    const intersected = names.reduce((sum, name) => sum + this.intersectionCost[name], 0);
    if (intersected < walked) {
      const counted = new Int32Array(this.valueKeys.length);
      for (let value = 0; value < counted.length; value++) {
        if (!names.includes(this.valueNames[value]!)) continue;
        const releases = this.valueReleases[value]!;
        if (this.dense[value]) counted[value] = countBoth(set, releases);
        else for (const ordinal of releases) if (has(set, ordinal)) counted[value]!++;
      }
      return counted;
    }
    if (members * 2 <= this.releases) return this.slots.count(set);
    const counted = this.slots.count(this.sets.complement(set));
    for (let value = 0; value < counted.length; value++) counted[value] = this.valueCounts[value]! - counted[value]!;
    return counted;
  }

  /** What intersecting a filter's every value with a set costs: a word per word of a set, a step per listed release. */
  private readonly intersectionCost: PerFilter<number>;

  /** The releases matching every chosen filter (any of its values); undefined when none is chosen. */
  matching(filters: FilterKeys): Int32Array | undefined {
    let set: Int32Array | undefined;
    for (const name of releaseFilterParameters) {
      if (filters[name].length === 0) continue;
      const values = this.union(name, filters[name]);
      if (set === undefined) set = values;
      else and(set, values);
    }
    return set;
  }

  /** The releases holding any of `keys` of filter `name`. */
  private union(name: ReleaseFilterParameter, keys: readonly string[]): Int32Array {
    const set = this.sets.take();
    for (const key of keys) {
      const value = this.numbers[name].get(key);
      if (value === undefined) continue;
      if (this.dense[value]) or(set, this.valueReleases[value]!);
      else addAll(set, this.valueReleases[value]!);
    }
    return set;
  }

  /**
   * Collects postings from rows of (release ordinal, filter, value), in any order: `add` each batch as it is
   * read, then `done` with how many releases there are (a release may hold no value at all).
   */
  static builder(): {
    add(rows: Iterable<PostingRow>): void;
    done(releases: number, sets?: BitSets): FilterPostings;
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
      done(releases, sets = new BitSets(releases)) {
        const numbers = perFilter(() => new Map<string, number>());
        const valueNames: ReleaseFilterParameter[] = [];
        const valueKeys: string[] = [];
        const valueReleases: Int32Array[] = [];
        const dense: boolean[] = [];
        const counts: number[] = [];
        for (const name of releaseFilterParameters) {
          for (const [key, list] of lists[name]) {
            numbers[name].set(key, valueKeys.push(key) - 1);
            valueNames.push(name);
            counts.push(list.length);
            if (list.length * 32 > releases) {
              const set = emptySet(releases);
              addAll(set, Int32Array.from(list));
              valueReleases.push(set);
              dense.push(true);
            } else {
              valueReleases.push(Int32Array.from(list).sort());
              dense.push(false);
            }
          }
        }
        const slots = ValueSlots.of(
          releases,
          valueKeys.length,
          releaseFilterParameters.flatMap((name) =>
            [...lists[name]].map(([key, list]) => ({ value: numbers[name].get(key)!, releases: list })),
          ),
        );
        return new FilterPostings(
          releases,
          numbers,
          valueNames,
          valueKeys,
          valueReleases,
          dense,
          Int32Array.from(counts),
          slots,
          sets,
        );
      },
    };
  }
}

/** How many passes of facets in context are kept: a few hundred values' counts each. */
const passesKept = 256;

/** One pass of facets in context: the values' counts (by value number) over its matches, and how many match. */
interface Pass {
  counted: Int32Array;
  total: number;
}

export interface PostingRow {
  /** The release's place in the catalogue's order (`CatalogueIndex`), from 0. */
  ordinal: number;
  name: ReleaseFilterParameter;
  value_key: string;
}
