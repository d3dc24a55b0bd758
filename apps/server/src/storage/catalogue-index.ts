import { releaseFilterParameters } from '@releases/contract';
import type { FilterKeys, PerFilter } from '../catalogue/filters.js';
import type { Search } from '../catalogue/search-text.js';
import { FilterPostings, type PostingRow } from './filter-postings.js';
import type { CatalogueQuery, ReleasePageRequest, ReleasePosition } from './interface.js';
import { and, ByteSets } from './byte-sets.js';
import { relevanceTiers } from './release-query.js';
import { tagKinds } from './schema.js';
import { SearchPostings } from './search-postings.js';

/** Each filter by its `release_tags` kind. */
const filterOfKind = new Map<number, PostingRow['name']>(releaseFilterParameters.map((name) => [tagKinds[name], name]));

/** A page as the index finds it: its releases' ids in page order, and where the next page starts. */
export interface IndexedPage {
  ids: string[];
  next: ReleasePosition | undefined;
}

/**
 * The whole catalogue's filter values and search text in memory, by release ordinal: a release's place in
 * page order (release date, then id, as the database orders them). A query's matches are then a few set
 * operations over arrays of one byte per release, at any catalogue size, and a page is the next members of that
 * set from the cursor's ordinal: no index range read deep for a rare combination of common terms or values,
 * no count over hundreds of thousands of matches. The database then reads the page's documents by primary key.
 *
 * At a million releases it holds about 160 MB: the ids, dates and titles (for pages and relevance), and the
 * postings (measured on SQLite: read in 17 s, the event loop held at most 171 ms at a time). Built from the
 * database for one generation of the catalogue (`catalogue-reads.ts` drops it when the catalogue changes).
 */
export class CatalogueIndex {
  private constructor(
    /** The catalogue's version (`catalogue_state`) it was read at. */
    readonly version: number,
    private readonly filters: FilterPostings,
    private readonly titles: SearchPostings,
    private readonly artists: SearchPostings,
    /** By ordinal: each release's id, release date and stored search title. */
    private readonly ids: string[],
    private readonly dates: string[],
    private readonly searchTitles: string[],
    /** Each title's first token only: the titles that may start with a search (tiers 0 and 1). */
    private readonly titleStarts: SearchPostings,
    private readonly ordinals: Map<string, number>,
    /** The sets every query here takes, all given back at its end. */
    private readonly sets: ByteSets,
  ) {}

  get releases(): number {
    return this.ids.length;
  }

  /** Each filter's counts over the query without it, and the query's total (SPEC §3.6). */
  facetsInContext(query: CatalogueQuery): { counts: PerFilter<Map<string, number>>; total: number } {
    try {
      return this.filters.facetsInContext(query.filters, query.search ? this.searchMatches(query.search) : undefined);
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
      from = this.ordinals.get(after.id);
      if (from === undefined || this.dates[from] !== after.releaseDate) return undefined;
    }
    if (request.search?.tokens.length === 0) return { ids: [], next: undefined };
    const matches = this.matching(request.filters, request.search);
    const fetch = request.limit + 1;
    let found: Array<{ ordinal: number; tier?: number }>;
    if (request.sort === 'relevance' && request.search) {
      found = this.relevancePage(request.search, matches, after?.tier ?? 0, from, fetch);
    } else if (request.sort === 'release_date') {
      found = [];
      for (let o = from === undefined ? 0 : from + 1; o < this.releases && found.length < fetch; o++) {
        if (matches === undefined || matches[o]) found.push({ ordinal: o });
      }
    } else {
      found = [];
      for (let o = from === undefined ? this.releases - 1 : from - 1; o >= 0 && found.length < fetch; o--) {
        if (matches === undefined || matches[o]) found.push({ ordinal: o });
      }
    }
    const page = found.slice(0, request.limit);
    const last = page[page.length - 1];
    return {
      ids: page.map(({ ordinal }) => this.ids[ordinal]!),
      next:
        found.length > request.limit && last
          ? { tier: last.tier, releaseDate: this.dates[last.ordinal]!, id: this.ids[last.ordinal]! }
          : undefined,
    };
  }

  /**
   * Under `sort=relevance`: from tier `tier` at ordinal `from` (exclusive; undefined: the tier's start), each
   * tier newest first, until `fetch` are found.
   */
  private relevancePage(
    search: Search,
    matches: Uint8Array | undefined,
    tier: number,
    from: number | undefined,
    fetch: number,
  ): Array<{ ordinal: number; tier: number }> {
    const found: Array<{ ordinal: number; tier: number }> = [];
    // Every term in the title: tiers 0 to 2 (a title starting with `q` holds every term of it).
    const inTitle = this.titles.matching(search);
    const tierOf = (o: number) => {
      if (!inTitle[o]) return 3;
      const title = this.searchTitles[o]!;
      return title === search.text ? 0 : title.startsWith(search.text) ? 1 : 2;
    };
    // Tiers 0 and 1, newest first, in one walk over the titles that may start with `q` (a few, where tier 2
    // may be most matches); tiers 2 and 3 walk the matches from the cursor until the page is full.
    const starting: number[][] = [[], []];
    if (tier <= 1) {
      const mayStartWithSearch = this.titlesMayStartWith(search);
      if (matches !== undefined) and(mayStartWithSearch, matches);
      for (let o = mayStartWithSearch.length - 1; o >= 0; o--) {
        if (mayStartWithSearch[o] === 0) continue;
        const t = tierOf(o);
        if (t <= 1) starting[t]!.push(o);
      }
    }
    for (let t = tier; t < relevanceTiers && found.length < fetch; t++) {
      const start = t === tier && from !== undefined ? from - 1 : this.releases - 1;
      if (t <= 1) {
        for (const o of starting[t]!) {
          if (found.length >= fetch) break;
          if (o <= start) found.push({ ordinal: o, tier: t });
        }
        continue;
      }
      for (let o = start; o >= 0 && found.length < fetch; o--) {
        if ((matches === undefined || matches[o]) && tierOf(o) === t) found.push({ ordinal: o, tier: t });
      }
    }
    return found;
  }

  /**
   * The titles that may start with the search: those whose first token begins with `q`'s first (a superset,
   * `tierOf` decides: `q=melt world` finds titles starting with `melted` too).
   */
  private titlesMayStartWith(search: Search): Uint8Array {
    const first = search.text.slice(1).split(' ')[0];
    return this.titleStarts.holding(search.tokens.find((token) => token.text === first)!);
  }

  /** The releases with every term in the title or the artist (SPEC §3.6). */
  private searchMatches(search: Search): Uint8Array {
    let matched: Uint8Array | undefined;
    for (const token of search.tokens) {
      const holding = this.artists.holding(token, this.titles.holding(token));
      if (matched === undefined) matched = holding;
      else and(matched, holding);
    }
    return matched ?? this.sets.take();
  }

  /** The releases matching the filters and the search; undefined when the query has neither. */
  private matching(filters: FilterKeys, search: Search | undefined): Uint8Array | undefined {
    const matched = search ? this.searchMatches(search) : undefined;
    const filtered = this.filters.matching(filters);
    if (matched && filtered) and(matched, filtered);
    return matched ?? filtered;
  }

  /**
   * Collects the catalogue in page order: `release` for each release (ordinals follow the calls), then `values`
   * with the filter values' `release_tags` rows, then `done`.
   */
  static builder(version = 0): {
    release(row: { id: string; release_date: string; search_title: string; search_artist: string }): void;
    values(rows: Iterable<{ release_id: string; kind: number; value_key: string }>): void;
    done(): CatalogueIndex;
  } {
    const titles = SearchPostings.builder();
    const artists = SearchPostings.builder();
    const filters = FilterPostings.builder();
    const ids: string[] = [];
    const dates: string[] = [];
    const searchTitles: string[] = [];
    const titleStarts = SearchPostings.builder();
    const ordinals = new Map<string, number>();
    return {
      release(row) {
        const ordinal = ids.length;
        ids.push(row.id);
        dates.push(row.release_date);
        searchTitles.push(row.search_title);
        ordinals.set(row.id, ordinal);
        titles.add(ordinal, row.search_title);
        titleStarts.add(ordinal, row.search_title.slice(0, row.search_title.indexOf(' ', 1) >>> 0));
        artists.add(ordinal, row.search_artist);
      },
      values(rows) {
        const postings: PostingRow[] = [];
        for (const row of rows) {
          const ordinal = ordinals.get(row.release_id);
          // A write between the reads: the generation moved on too, and this index is not kept.
          if (ordinal === undefined) throw new Error('the catalogue changed while it was read');
          const name = filterOfKind.get(row.kind);
          if (name === undefined) throw new Error(`not a filter's kind: ${row.kind}`);
          postings.push({ ordinal, name, value_key: row.value_key });
        }
        filters.add(postings);
      },
      done() {
        const sets = new ByteSets(ids.length);
        return new CatalogueIndex(
          version,
          filters.done(ids.length, sets),
          titles.done(sets),
          artists.done(sets),
          ids,
          dates,
          searchTitles,
          titleStarts.done(sets),
          ordinals,
          sets,
        );
      },
    };
  }
}
