import { isCjkLetter, type Search } from '../catalogue/search-text.js';

/**
 * The search text of a whole catalogue, in memory, for the facets in context of a query with `q`: which
 * releases a search matches, as one byte (0 or 1) per release ordinal, in a few milliseconds at a million
 * releases, where counting the matches in the database takes seconds once a term is common.
 *
 * It holds each distinct token once, with the releases holding it (title or artist: a term may be in either,
 * SPEC §3.6), so that it matches exactly as the database's `like` patterns do (`release-query.ts`):
 * - a Latin term matches the tokens it begins: the words of a sorted list, found by binary search;
 * - a CJK term matches the CJK tokens it is part of: those holding the term's rarest character, then checked.
 * About 4 bytes per (release, distinct token) pair, plus the distinct tokens themselves.
 */
export class SearchPostings {
  private constructor(
    private readonly releases: number,
    /** Latin tokens, sorted (by UTF-16 code unit, so that the words beginning with a term are adjacent). */
    private readonly words: string[],
    private readonly wordReleases: Uint32Array[],
    private readonly runs: string[],
    private readonly runReleases: Uint32Array[],
    /** For each CJK character, the runs (indexes into `runs`) that hold it. */
    private readonly runsByCharacter: Map<string, Uint32Array>,
  ) {}

  /** The releases matching every term of `search`, one byte per ordinal; a search of no terms matches none. */
  matching(search: Search): Uint8Array {
    let matched: Uint8Array | undefined;
    for (const token of search.tokens) {
      const set = token.cjk ? this.matchingRun(token.text) : this.matchingWord(token.text);
      if (matched === undefined) matched = set;
      else for (let i = 0; i < matched.length; i++) matched[i]! &= set[i]!;
    }
    return matched ?? new Uint8Array(this.releases);
  }

  private matchingWord(term: string): Uint8Array {
    const set = new Uint8Array(this.releases);
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

  private matchingRun(term: string): Uint8Array {
    const set = new Uint8Array(this.releases);
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
   * Collects the search text of releases `0..releases-1`: `add` each release's stored search text (title and
   * artist, as `searchableText` wrote them), in any order, then `done`.
   */
  static builder(): { add(ordinal: number, ...fields: string[]): void; done(releases: number): SearchPostings } {
    const words = new Map<string, number[]>();
    const runs = new Map<string, number[]>();
    return {
      add(ordinal, ...fields) {
        for (const field of fields) {
          // Stored text is its tokens, each after one space; a token is all CJK letters or none.
          for (const token of field.split(' ')) {
            if (token === '') continue;
            const lists = isCjkLetter(String.fromCodePoint(token.codePointAt(0)!)) ? runs : words;
            let list = lists.get(token);
            if (list === undefined) lists.set(token, (list = []));
            // A token twice in one release (in the title and the artist) is one posting.
            if (list[list.length - 1] !== ordinal) list.push(ordinal);
          }
        }
      },
      done(releases) {
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
          releases,
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
