import type { ReleaseFilterParameter } from '@releases/contract';
import type { FilterKeys, PerFilter } from '../catalogue/filters.js';
import type { Search } from '../catalogue/search-text.js';
import { and, andNot, BitSets, nextMember, previousMember } from './bit-sets.js';
import { FilterPostings, type PostingRow } from './filter-postings.js';
import {
  relevanceTiers,
  type CatalogueQuery,
  type ReleasePageRequest,
  type ReleasePosition,
} from '../catalogue/query.js';
import { PackedStrings } from './packed-strings.js';
import { SearchPostings } from './search-postings.js';
import { firstNotBelow } from './sorted.js';

/** A page as the index finds it: its releases' ids in page order, and where the next page starts. */
export interface IndexedPage {
  ids: string[];
  next: ReleasePosition | undefined;
}

/**
 * The whole catalogue's filter values and search text in memory, by release ordinal: a release's place in
 * page order (release date, then id, as the database orders them). A query's matches are then a few set
 * operations over sets of one bit per release (`bit-sets.ts`), at any catalogue size, and a page is the next
 * members of that set from the cursor's ordinal: no index range read deep for a rare combination of common
 * terms or values, no count over hundreds of thousands of matches. The database then reads the page's
 * documents by primary key.
 *
 * Compact, since every instance holds one: ids and search titles packed as UTF-8 (`packed-strings.ts`), dates
 * as numbers, postings in typed arrays. Built from the database for one generation of the catalogue
 * (`catalogue-reads.ts` drops it when the catalogue changes).
 */
export class CatalogueIndex {
  private constructor(
    /** The catalogue's version (`catalogue_state`) it was read at. */
    readonly version: number,
    private readonly filters: FilterPostings,
    private readonly titles: SearchPostings,
    private readonly artists: SearchPostings,
    /** By ordinal: each release's id, release date (`YYYYMMDD` as a number) and stored search title. */
    private readonly ids: PackedStrings,
    private readonly dates: Int32Array,
    private readonly searchTitles: PackedStrings,
    /** Each title's first token only: the titles that may start with a search (tiers 0 and 1). */
    private readonly titleStarts: SearchPostings,
    /** The sets every query here takes, all given back at its end. */
    private readonly sets: BitSets,
  ) {}

  get releases(): number {
    return this.dates.length;
  }

  /** Each filter's counts over the query without it, and the query's total (SPEC §3.6). */
  facetsInContext(query: CatalogueQuery): { counts: PerFilter<Map<string, number>>; total: number } {
    try {
      const search = query.search;
      return this.filters.facetsInContext(
        query.filters,
        // `q=!!!` has no terms and no text, and matches nothing: its key must not be the catalogue's ('').
        search && { key: `q${search.text}`, matches: () => this.searchMatches(search) },
      );
    } finally {
      this.sets.reset();
    }
  }

  /**
   * One page of the query from the request's cursor, or undefined when the cursor's release is not here (it
   * was removed since: the database answers, by the cursor's date and id).
   */
  page(request: ReleasePageRequest): IndexedPage | undefined {
    try {
      return this.pageFrom(request);
    } finally {
      this.sets.reset();
    }
  }

  private pageFrom(request: ReleasePageRequest): IndexedPage | undefined {
    const after = request.after;
    let from: number | undefined;
    if (after) {
      from = this.ordinalOf(after.releaseDate, after.id);
      if (from === undefined) return undefined;
    }
    if (request.search?.tokens.length === 0) return { ids: [], next: undefined };
    const matches = this.matching(request.filters, request.search);
    const fetch = request.limit + 1;
    const found: Array<{ ordinal: number; tier?: number }> = [];
    if (request.sort === 'relevance' && request.search && matches) {
      this.relevancePage(request.search, matches, after?.tier ?? 0, from, fetch, found);
    } else if (request.sort === 'release_date') {
      for (let o = from === undefined ? 0 : from + 1; found.length < fetch; o++) {
        o = matches === undefined ? (o < this.releases ? o : -1) : nextMember(matches, o);
        if (o < 0) break;
        found.push({ ordinal: o });
      }
    } else {
      for (let o = from === undefined ? this.releases - 1 : from - 1; found.length < fetch; o--) {
        o = matches === undefined ? o : previousMember(matches, o);
        if (o < 0) break;
        found.push({ ordinal: o });
      }
    }
    const page = found.slice(0, request.limit);
    const last = page[page.length - 1];
    return {
      ids: page.map(({ ordinal }) => this.ids.get(ordinal)),
      next:
        found.length > request.limit && last
          ? { tier: last.tier, releaseDate: dateText(this.dates[last.ordinal]!), id: this.ids.get(last.ordinal) }
          : undefined,
    };
  }

  /**
   * Under `sort=relevance`: from tier `tier` at ordinal `from` (exclusive; undefined: the tier's start), each
   * tier newest first, until `fetch` are in `found`.
   */
  private relevancePage(
    search: Search,
    matches: Int32Array,
    tier: number,
    from: number | undefined,
    fetch: number,
    found: Array<{ ordinal: number; tier?: number }>,
  ): void {
    const text = Buffer.from(search.text);
    const titles = this.searchTitles;
    // Tiers 0 and 1 are among the titles whose first token may begin `q` (a few, where tier 2 may be most
    // matches); tier 2 is every term in the title (a title starting with `q` holds every term of it, and is
    // skipped there), tier 3 the rest.
    let starting: Int32Array | undefined;
    let inTitle: Int32Array | undefined;
    const tiers: Array<() => { set: Int32Array; holds?: (o: number) => boolean }> = [
      () => ({ set: (starting ??= this.titlesMayStartWith(search, matches)), holds: (o) => titles.equals(o, text) }),
      () => ({
        set: (starting ??= this.titlesMayStartWith(search, matches)),
        holds: (o) => !titles.equals(o, text) && titles.startsWith(o, text),
      }),
      () => {
        const set = this.sets.copy(matches);
        and(set, (inTitle ??= this.titles.matching(search)));
        return { set, holds: (o) => !titles.startsWith(o, text) };
      },
      () => {
        const set = this.sets.copy(matches);
        andNot(set, (inTitle ??= this.titles.matching(search)));
        return { set };
      },
    ];
    for (let t = tier; t < relevanceTiers && found.length < fetch; t++) {
      const { set, holds } = tiers[t]!();
      for (let o = t === tier && from !== undefined ? from - 1 : this.releases - 1; found.length < fetch; o--) {
        o = previousMember(set, o);
        if (o < 0) break;
        if (holds === undefined || holds(o)) found.push({ ordinal: o, tier: t });
      }
    }
  }

  /**
   * Among `matches`, the titles that may start with the search: those whose first token begins with `q`'s first
   * (a superset: `q=melt world` finds titles starting with `melted` too).
   */
  private titlesMayStartWith(search: Search, matches: Int32Array): Int32Array {
    const first = search.text.slice(1).split(' ')[0];
    const set = this.titleStarts.holding(search.tokens.find((token) => token.text === first)!);
    and(set, matches);
    return set;
  }

  /** The releases with every term in the title or the artist (SPEC §3.6). */
  private searchMatches(search: Search): Int32Array {
    let matched: Int32Array | undefined;
    for (const token of search.tokens) {
      const holding = this.artists.holding(token, this.titles.holding(token));
      if (matched === undefined) matched = holding;
      else and(matched, holding);
    }
    return matched ?? this.sets.take();
  }

  /** The releases matching the filters and the search; undefined when the query has neither. */
  private matching(filters: FilterKeys, search: Search | undefined): Int32Array | undefined {
    const matched = search ? this.searchMatches(search) : undefined;
    const filtered = this.filters.matching(filters);
    if (matched && filtered) and(matched, filtered);
    return matched ?? filtered;
  }

  /** The ordinal of the release `id` of `releaseDate`, by binary search over the dates; undefined if not here. */
  private ordinalOf(releaseDate: string, id: string): number | undefined {
    const date = dateNumber(releaseDate);
    const dates = this.dates;
    const idBytes = Buffer.from(id);
    for (let o = firstNotBelow(dates, date); o < dates.length && dates[o] === date; o++) {
      if (this.ids.equals(o, idBytes)) return o;
    }
    return undefined;
  }

  /**
   * Collects the catalogue in page order: `release` for each release (ordinals follow the calls), then `values`
   * with each filter's values of the releases, in batches, then `done`.
   */
  static builder(version = 0): {
    release(row: { id: string; release_date: string; search_title: string; search_artist: string }): void;
    values(filter: ReleaseFilterParameter, rows: Iterable<{ release_id: string; value_key: string }>): void;
    done(): CatalogueIndex;
  } {
    const titles = SearchPostings.builder();
    const artists = SearchPostings.builder();
    const filters = FilterPostings.builder();
    const ids = PackedStrings.builder();
    const dates: number[] = [];
    const searchTitles = PackedStrings.builder();
    const titleStarts = SearchPostings.builder();
    // Only while building: the filter values' rows name their release by id.
    const ordinals = new Map<string, number>();
    return {
      release(row) {
        const ordinal = dates.length;
        ids.add(row.id);
        dates.push(dateNumber(row.release_date));
        searchTitles.add(row.search_title);
        ordinals.set(row.id, ordinal);
        titles.add(ordinal, row.search_title);
        titleStarts.add(ordinal, row.search_title.slice(0, row.search_title.indexOf(' ', 1) >>> 0));
        artists.add(ordinal, row.search_artist);
      },
      values(filter, rows) {
        const postings: PostingRow[] = [];
        for (const row of rows) {
          const ordinal = ordinals.get(row.release_id);
          // A write between the reads: the generation moved on too, and this index is not kept.
          if (ordinal === undefined) throw new Error('the catalogue changed while it was read');
          postings.push({ ordinal, name: filter, value_key: row.value_key });
        }
        filters.add(postings);
      },
      done() {
        const sets = new BitSets(dates.length);
        ordinals.clear();
        return new CatalogueIndex(
          version,
          filters.done(dates.length, sets),
          titles.done(sets),
          artists.done(sets),
          ids.done(),
          Int32Array.from(dates),
          searchTitles.done(),
          titleStarts.done(sets),
          sets,
        );
      },
    };
  }
}

/** `YYYY-MM-DD` as the number `YYYYMMDD` (the same order); NaN for anything else. */
function dateNumber(date: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? Number(date.slice(0, 4) + date.slice(5, 7) + date.slice(8, 10)) : NaN;
}

function dateText(date: number): string {
  const text = String(date).padStart(8, '0');
  return `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
}
