import { releaseFilterParameters, type ReleaseFilterParameter, type SortOrder } from '@releases/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../catalogue/cursor.js';
import { filterKeys, perFilter, type PerFilter } from '../catalogue/filters.js';
import { relevanceTiers, type ReleasePageRequest } from '../catalogue/query.js';
import { parseSearch, searchableText, searchTokens, type Search } from '../catalogue/search-text.js';
import { CatalogueIndex } from './catalogue-index.js';

/**
 * The catalogue in memory against a brute-force reading of SPEC §3.1 and §3.6, over random small catalogues and
 * queries: which releases match, in which order (each sort, the relevance tiers), how they are paged (every
 * page size, through real cursors), and the facets in context. The brute force shares only the text folding
 * (`search-text.ts`, the SPEC's definition of what compares equal); everything the engine keeps (bit sets,
 * postings, value slots, kept passes, common terms' sets) is checked against plain loops over the releases.
 */

interface Release {
  id: string;
  releaseDate: string;
  title: string;
  artist: string;
  values: PerFilter<string[]>;
}

// A small vocabulary, so that random titles share words, prefixes, CJK characters and whole titles.
const latin = ['melt', 'melting', 'Mélt', 'MELODY', 'ryo', 'supercell', 'hoshi', 'hoshiboshi', 'away', 'a', 'café'];
const cjk = ['初音', 'ミク', '初音ミク', 'メルト', '千本桜', '桜', 'ハッピー', '音'];
const punctuation = [' ', ' ', ' ', ' - ', '・', '!', ' (', ') '];
/** Each filter's values, the common ones first: small catalogues use the first few, large ones all of them. */
const valuesOf: PerFilter<string[]> = {
  vocaloid_banks: ['Hatsune Miku', 'GUMI', 'IA', 'Kagamine Rin', ...Array.from({ length: 26 }, (_, i) => `Bank ${i}`)],
  genres: ['rock', 'pop', 'ballad', 'electropop', ...Array.from({ length: 16 }, (_, i) => `genre ${i}`)],
  languages: ['ja', 'en', 'zh-Hans', 'ko', 'es', 'fr', 'de', 'it'],
};
const smallValues = perFilter((name) => valuesOf[name].slice(0, name === 'languages' ? 3 : 4));

const text = fc
  .array(fc.tuple(fc.constantFrom(...latin, ...cjk), fc.constantFrom(...punctuation)), { minLength: 1, maxLength: 4 })
  .map(
    (parts) =>
      parts
        .map(([word, gap]) => word + gap)
        .join('')
        .trim() || 'melt',
  );

const release = (index: number) =>
  fc.record({
    id: fc.constant(`rel_${String(index).padStart(3, '0')}`),
    // Few dates, so that pages break ties by id.
    releaseDate: fc.constantFrom('2007-08-31', '2008-01-01', '2010-05-05', '2010-05-06', '2020-12-24'),
    title: text,
    artist: text,
    values: fc.record(perFilter((name) => fc.uniqueArray(fc.constantFrom(...smallValues[name]), { maxLength: 3 }))),
  });

/** Small catalogues, every release drawn by fast-check (and shrunk by it when a property fails). */
const smallCatalogue: fc.Arbitrary<Release[]> = fc
  .integer({ min: 0, max: 40 })
  .chain((size) => fc.tuple(...Array.from({ length: size }, (_, i) => release(i))));

/**
 * Catalogues of a few thousand releases, from a seed: large enough that the engine's other paths run (values
 * rare enough to be kept as lists of releases rather than sets, releases holding more values than their slots,
 * counts over the releases a query leaves out).
 */
const largeCatalogue: fc.Arbitrary<Release[]> = fc.integer().map((seed) => {
  let state = seed >>> 0 || 1;
  const next = (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  const pick = <T>(list: readonly T[]) => list[next(list.length)]!;
  const words = () =>
    Array.from({ length: 1 + next(3) }, () => pick([...latin, ...cjk]) + pick(punctuation))
      .join('')
      .trim() || 'melt';
  return Array.from({ length: 2_000 + next(1_000) }, (_, i) => ({
    id: `rel_${String(i).padStart(4, '0')}`,
    releaseDate: `20${String(10 + next(10))}-0${1 + next(9)}-1${next(10)}`,
    title: words(),
    artist: words(),
    values: perFilter((name) => {
      const values = valuesOf[name];
      // One release in 1,500 holds every value, more than the slots of the rest hold (the engine's overflow).
      if (next(1_500) === 0) return values;
      // One to three values each, the first ones common and the last ones rare (a few releases in a thousand).
      const chosen = new Set<string>();
      for (let n = 1 + next(3); n > 0; n--) chosen.add(values[Math.floor(values.length * (next(1_000) / 1_000) ** 3)]!);
      return [...chosen];
    }),
  }));
});

/** A `q` as people type one: words of the vocabulary, beginnings of them, a character of a CJK word. */
const q = fc
  .array(
    fc.oneof(
      fc.constantFrom(...latin, ...cjk),
      fc.constantFrom(...latin).map((word) => word.slice(0, 2)),
      fc.constantFrom(...cjk).map((word) => [...word][0]!),
      fc.constantFrom('zzz', '!!!', 'MELT', 'hoshi away'),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((terms) => terms.join(' '));

interface Query {
  chosen: PerFilter<string[]>;
  q: string | undefined;
  sort: SortOrder;
  limit: number;
}

const query: fc.Arbitrary<Query> = fc
  .record({
    chosen: fc.record(
      perFilter((name) => fc.uniqueArray(fc.constantFrom(...valuesOf[name], 'Unheard Of'), { maxLength: 2 })),
    ),
    q: fc.option(q, { nil: undefined }),
    sort: fc.constantFrom<SortOrder>('-release_date', 'release_date', 'relevance'),
    limit: fc.integer({ min: 1, max: 7 }),
  })
  // `relevance` is for searches only (the route refuses it without `q`).
  .map((query) => (query.q === undefined && query.sort === 'relevance' ? { ...query, sort: '-release_date' } : query));

/** Queries for `releases`: some search for the whole of a title or its first words, as people paste them. */
const queriesFor = (releases: Release[]): fc.Arbitrary<Query[]> =>
  fc.array(
    fc.oneof(
      { weight: 3, arbitrary: query },
      {
        weight: 1,
        arbitrary: fc
          .tuple(query, fc.constantFrom(...(releases.length > 0 ? releases : [undefined])), fc.nat(3))
          .map(([each, title, words]) => ({
            ...each,
            q:
              title === undefined
                ? each.q
                : title.title
                    .split(' ')
                    .slice(0, words + 1)
                    .join(' '),
          })),
      },
    ),
    { minLength: 1, maxLength: 6 },
  );

/** Page order: release date, then id. */
const byDateThenId = (a: Release, b: Release) =>
  a.releaseDate < b.releaseDate ? -1 : a.releaseDate > b.releaseDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

function build(releases: Release[]): CatalogueIndex {
  const builder = CatalogueIndex.builder();
  for (const each of [...releases].sort(byDateThenId)) {
    builder.release({
      id: each.id,
      release_date: each.releaseDate,
      search_title: searchableText(each.title),
      search_artist: searchableText(each.artist),
    });
  }
  // The filter values in another order than the releases', a filter at a time, as the database hands them over.
  for (const name of releaseFilterParameters) {
    const rows = [...releases]
      .reverse()
      .flatMap((each) => each.values[name].map((value) => ({ release_id: each.id, value_key: value.toLowerCase() })));
    builder.values(name, rows);
  }
  return builder.done();
}

/** SPEC §3.6: the field holds the term, a Latin one at a word's beginning, a CJK one anywhere in a CJK run. */
function holds(field: string, term: { text: string; cjk: boolean }): boolean {
  return searchTokens(field).some((token) =>
    term.cjk ? token.cjk && token.text.includes(term.text) : !token.cjk && token.text.startsWith(term.text),
  );
}

function matchesSearch(each: Release, search: Search | undefined): boolean {
  if (!search) return true;
  return search.tokens.length > 0 && search.tokens.every((term) => holds(each.title, term) || holds(each.artist, term));
}

/** Within one filter the values are OR-ed, across filters AND-ed; `except` leaves one filter out. */
function matchesFilters(each: Release, chosen: PerFilter<string[]>, except?: ReleaseFilterParameter): boolean {
  return releaseFilterParameters.every((name) => {
    const wanted = chosen[name].map((value) => value.toLowerCase());
    return name === except || wanted.length === 0 || each.values[name].some((v) => wanted.includes(v.toLowerCase()));
  });
}

function tierOf(each: Release, search: Search): number {
  const title = searchableText(each.title);
  if (title === search.text) return 0;
  if (title.startsWith(search.text)) return 1;
  return search.tokens.every((term) => holds(each.title, term)) ? 2 : 3;
}

/** The ids the query finds, in the order SPEC §3.1 and §3.6 give. */
function expectedOrder(releases: Release[], query: Query): string[] {
  const search = query.q === undefined ? undefined : parseSearch(query.q);
  const oldestFirst = releases
    .filter((each) => matchesSearch(each, search) && matchesFilters(each, query.chosen))
    .sort(byDateThenId);
  if (query.sort === 'release_date') return oldestFirst.map((each) => each.id);
  const newestFirst = oldestFirst.reverse();
  if (query.sort === '-release_date' || !search) return newestFirst.map((each) => each.id);
  return Array.from({ length: relevanceTiers }, (_, tier) =>
    newestFirst.filter((each) => tierOf(each, search) === tier).map((each) => each.id),
  ).flat();
}

const codec = new CursorCodec('a property test secret, long enough to sign');

/** Every page of the query, following each page's cursor through the cursor codec, as a client would. */
function walk(index: CatalogueIndex, query: Query): string[][] {
  const search = query.q === undefined ? undefined : parseSearch(query.q);
  const filters = filterKeys(query.chosen);
  const bound = { filters, search: search?.text, sort: query.sort };
  const request: ReleasePageRequest = { filters, search, sort: query.sort, limit: query.limit, after: undefined };
  const pages: string[][] = [];
  for (;;) {
    const page = index.page(request);
    if (page === undefined) throw new Error('the index did not find a cursor it issued');
    pages.push(page.ids);
    if (!page.next) return pages;
    if (pages.length > index.releases) throw new Error('more pages than releases');
    request.after = codec.decode(codec.encode(page.next, bound), bound);
  }
}

/** A page walk of every query finds what the brute force finds, in its order, `limit` at a time. */
function pagesAgree(releases: Release[], queries: Query[]): void {
  const index = build(releases);
  for (const each of queries) {
    const pages = walk(index, each);
    const expected = expectedOrder(releases, each);
    expect(pages.flat(), JSON.stringify(each)).toEqual(expected);
    // Every page but the last is full, and the last is not empty unless nothing matches.
    pages.slice(0, -1).forEach((page) => expect(page).toHaveLength(each.limit));
    expect(pages.at(-1)!.length > 0 || expected.length === 0).toBe(true);
  }
}

/** Facets in context of every query are the brute force's counts; asked twice, as kept passes answer then. */
function facetsAgree(releases: Release[], queries: Query[]): void {
  const index = build(releases);
  for (const each of [...queries, ...queries]) {
    const search = each.q === undefined ? undefined : parseSearch(each.q);
    const { counts, total } = index.facetsInContext({ filters: filterKeys(each.chosen), search });
    const matching = releases.filter((r) => matchesSearch(r, search));
    expect(total).toBe(matching.filter((r) => matchesFilters(r, each.chosen)).length);
    for (const name of releaseFilterParameters) {
      const expected = new Map<string, number>();
      for (const r of matching.filter((r) => matchesFilters(r, each.chosen, name))) {
        for (const value of r.values[name]) {
          const key = value.toLowerCase();
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
      }
      expect(new Map([...counts[name]].sort()), `${name} of ${JSON.stringify(each)}`).toEqual(
        new Map([...expected].sort()),
      );
    }
  }
}

const withQueries = (releases: fc.Arbitrary<Release[]>) =>
  releases.chain((each) => fc.tuple(fc.constant(each), queriesFor(each)));

describe('the catalogue in memory, against a brute-force reading of SPEC §3.6', () => {
  it('finds what the query matches, in order, a page of `limit` at a time, through cursors', () => {
    fc.assert(
      fc.property(withQueries(smallCatalogue), ([releases, queries]) => pagesAgree(releases, queries)),
      {
        numRuns: 300,
      },
    );
  });

  it('counts each filter over the query without it, and the total over all of it (facets in context)', () => {
    fc.assert(
      fc.property(withQueries(smallCatalogue), ([releases, queries]) => facetsAgree(releases, queries)),
      {
        numRuns: 300,
      },
    );
  });

  it('does both on catalogues of thousands of releases, where rare values and crowded releases are', () => {
    fc.assert(
      fc.property(withQueries(largeCatalogue), ([releases, queries]) => {
        pagesAgree(releases, queries);
        facetsAgree(releases, queries);
      }),
      { numRuns: 15 },
    );
  });
});
