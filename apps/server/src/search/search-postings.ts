import { isCjkLetter, type Search, type SearchToken } from '../catalogue/search-text.js';
import { addAll, and, concatenated, emptySet, or, type BitSets } from './bit-sets.js';
import { BoundedCache } from '../kernel/bounded-cache.js';
import { firstNotBelow } from './sorted.js';

/** How many common terms' sets each field keeps (125 KB each at a million releases). */
const commonSetsKept = 16;

/**
 * One search field (the titles, or the artists) of a whole catalogue, in memory (`CatalogueIndex`): which
 * releases hold a search term, as a set of release ordinals (`bit-sets.ts`), in well under a millisecond for
 * most terms at a million releases, where the database needs seconds once a term is common and the matches
 * must all be counted.
 *
 * It holds each distinct token once, with the releases holding it, so that it matches exactly as the
 * database's `like` patterns do (`db/catalogue/page-query.ts`):
 * - a Latin term matches the tokens it begins: a range of the sorted words, found by binary search, whose
 *   postings are one range of one array (they are stored in the words' order);
 * - a CJK term matches the CJK tokens it is part of: those holding the term's rarest character, then checked.
 * 4 bytes per (release, distinct token) pair, plus the distinct tokens themselves.
 */
export class SearchPostings {
  private constructor(
    private readonly sets: BitSets,
    /** Latin tokens, sorted (by UTF-16 code unit, so that the words beginning with a term are adjacent). */
    private readonly words: string[],
    /** Word `i`'s releases are `wordPostings[wordFrom[i]..wordFrom[i + 1])`. */
    private readonly wordFrom: Int32Array,
    private readonly wordPostings: Int32Array,
    private readonly runs: string[],
    private readonly runFrom: Int32Array,
    private readonly runPostings: Int32Array,
    /** For each CJK character, the runs (indexes into `runs`) that hold it. */
    private readonly runsByCharacter: Map<string, Int32Array>,
  ) {}

  /** Sets of common terms (`holding`). */
  private readonly common = new BoundedCache<string, Int32Array>({ max: commonSetsKept });

  /** The releases holding every term of `search`; a search of no terms matches none. */
  matching(search: Search): Int32Array {
    let matched: Int32Array | undefined;
    for (const token of search.tokens) {
      if (matched === undefined) matched = this.holding(token);
      else and(matched, this.holding(token));
    }
    return matched ?? this.sets.take();
  }

  /** The releases holding `token` (added to `into` when given, else to a new set). */
  holding(token: SearchToken, into: Int32Array = this.sets.take()): Int32Array {
    const ranges = token.cjk ? this.runRanges(token.text) : this.wordRanges(token.text);
    let postings = 0;
    for (let i = 0; i < ranges.length; i += 2) postings += ranges[i + 1]! - ranges[i]!;
    // A common term's set is kept: adding its postings one by one (a million, for a word in every artist's
    // name) costs about a millisecond each time, uniting its set 31,250 words.
    if (postings > this.sets.words * 2) {
      or(into, this.commonSet(`${token.cjk ? 'c' : 'l'}${token.text}`, ranges, token.cjk));
      return into;
    }
    const all = token.cjk ? this.runPostings : this.wordPostings;
    for (let i = 0; i < ranges.length; i += 2) addAll(into, all, ranges[i], ranges[i + 1]);
    return into;
  }

  private commonSet(key: string, ranges: number[], cjk: boolean): Int32Array {
    return this.common.getOrSet(key, () => {
      const set = emptySet(this.sets.size);
      const all = cjk ? this.runPostings : this.wordPostings;
      for (let i = 0; i < ranges.length; i += 2) addAll(set, all, ranges[i], ranges[i + 1]);
      return set;
    });
  }

  /** Where the postings of the words `term` begins are (one range: the words are sorted, postings in their order). */
  private wordRanges(term: string): number[] {
    const words = this.words;
    const low = firstNotBelow(words, term);
    let end = low;
    while (end < words.length && words[end]!.startsWith(term)) end++;
    return [this.wordFrom[low]!, this.wordFrom[end]!];
  }

  /** Where the postings of the CJK runs holding `term` are: a range per run. */
  private runRanges(term: string): number[] {
    let rarest: Int32Array | undefined;
    for (const character of term) {
      const runs = this.runsByCharacter.get(character);
      if (runs === undefined) return [];
      if (rarest === undefined || runs.length < rarest.length) rarest = runs;
    }
    const ranges: number[] = [];
    for (const run of rarest ?? []) {
      if (this.runs[run]!.includes(term)) ranges.push(this.runFrom[run]!, this.runFrom[run + 1]!);
    }
    return ranges;
  }

  /**
   * Collects the field of releases `0..releases-1`: `add` each release's stored search text (as
   * `searchableText` wrote it), in any order, then `done`.
   */
  static builder(): { add(ordinal: number, field: string): void; done(sets: BitSets): SearchPostings } {
    const words = new Map<string, number[]>();
    const runs = new Map<string, number[]>();
    return {
      add(ordinal, field) {
        // Stored text is its tokens, each after one space; a token is all CJK letters or none.
        for (const token of field.split(' ')) {
          if (token === '') continue;
          const lists = isCjkLetter(String.fromCodePoint(token.codePointAt(0)!)) ? runs : words;
          let list = lists.get(token);
          if (list === undefined) lists.set(token, (list = []));
          // A token twice in one field is one posting.
          if (list[list.length - 1] !== ordinal) list.push(ordinal);
        }
      },
      done(sets) {
        const sortedWords = [...words.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const runList = [...runs.keys()];
        const byCharacter = new Map<string, number[]>();
        runList.forEach((run, index) => {
          for (const character of new Set(run)) {
            let list = byCharacter.get(character);
            if (list === undefined) byCharacter.set(character, (list = []));
            list.push(index);
          }
        });
        const wordPostings = concatenated(sortedWords.map((word) => words.get(word)!));
        const runPostings = concatenated(runList.map((run) => runs.get(run)!));
        return new SearchPostings(
          sets,
          sortedWords,
          wordPostings.from,
          wordPostings.all,
          runList,
          runPostings.from,
          runPostings.all,
          new Map([...byCharacter].map(([character, list]) => [character, Int32Array.from(list)])),
        );
      },
    };
  }
}
