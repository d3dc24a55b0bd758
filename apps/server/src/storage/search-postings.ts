import { isCjkLetter, type Search, type SearchToken } from '../catalogue/search-text.js';
import { and, type ByteSets } from './byte-sets.js';

/**
 * One search field (the titles, or the artists) of a whole catalogue, in memory (`CatalogueIndex`): which
 * releases hold a search term, as one byte (0 or 1) per release ordinal, in a few milliseconds at a million
 * releases, where the database needs seconds once a term is common and the matches must all be counted.
 *
 * It holds each distinct token once, with the releases holding it, so that it matches exactly as the
 * database's `like` patterns do (`release-query.ts`):
 * - a Latin term matches the tokens it begins: the words of a sorted list, found by binary search;
 * - a CJK term matches the CJK tokens it is part of: those holding the term's rarest character, then checked.
 * About 4 bytes per (release, distinct token) pair, plus the distinct tokens themselves.
 */
export class SearchPostings {
  private constructor(
    private readonly sets: ByteSets,
    /** Latin tokens, sorted (by UTF-16 code unit, so that the words beginning with a term are adjacent). */
    private readonly words: string[],
    private readonly wordReleases: Uint32Array[],
    private readonly runs: string[],
    private readonly runReleases: Uint32Array[],
    /** For each CJK character, the runs (indexes into `runs`) that hold it. */
    private readonly runsByCharacter: Map<string, Uint32Array>,
  ) {}

  /** The releases holding every term of `search`, one byte per ordinal; a search of no terms matches none. */
  matching(search: Search): Uint8Array {
    let matched: Uint8Array | undefined;
    for (const token of search.tokens) {
      if (matched === undefined) matched = this.holding(token);
      else and(matched, this.holding(token));
    }
    return matched ?? this.sets.take();
  }

  /** The releases holding `token` (added to `into` when given, else to a new set). */
  holding(token: SearchToken, into: Uint8Array = this.sets.take()): Uint8Array {
    return token.cjk ? this.matchingRun(token.text, into) : this.matchingWord(token.text, into);
  }

  private matchingWord(term: string, set: Uint8Array): Uint8Array {
    let low = 0;
    let high = this.words.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.words[middle]! < term) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < this.words.length && this.words[i]!.startsWith(term); i++) {
      for (const ordinal of this.wordReleases[i]!) set[ordinal] = 1;
    }
    return set;
  }

  private matchingRun(term: string, set: Uint8Array): Uint8Array {
    let rarest: Uint32Array | undefined;
    for (const character of term) {
      const runs = this.runsByCharacter.get(character);
      if (runs === undefined) return set;
      if (rarest === undefined || runs.length < rarest.length) rarest = runs;
    }
    for (const run of rarest ?? []) {
      if (!this.runs[run]!.includes(term)) continue;
      for (const ordinal of this.runReleases[run]!) set[ordinal] = 1;
    }
    return set;
  }

  /**
   * Collects the field of releases `0..releases-1`: `add` each release's stored search text (as
   * `searchableText` wrote it), in any order, then `done`.
   */
  static builder(): { add(ordinal: number, field: string): void; done(sets: ByteSets): SearchPostings } {
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
        return new SearchPostings(
          sets,
          sortedWords,
          sortedWords.map((word) => Uint32Array.from(words.get(word)!)),
          runList,
          runList.map((run) => Uint32Array.from(runs.get(run)!)),
          new Map([...byCharacter].map(([character, list]) => [character, Uint32Array.from(list)])),
        );
      },
    };
  }
}
