import type { SortOrder } from '@releases/contract';
import { describe, expect, it } from 'vitest';
import { filterKeys } from '../catalogue/filters.js';
import { parseSearch, searchableText } from '../catalogue/search-text.js';
import { CatalogueIndex } from './catalogue-index.js';
import type { ReleasePageRequest } from '../catalogue/query.js';

interface Release {
  id: string;
  date: string;
  title: string;
  artist: string;
  genres: string[];
}

const releases: Release[] = [
  { id: 'r01', date: '2007-08-31', title: 'Melt', artist: 'ryo (supercell)', genres: ['pop'] },
  { id: 'r02', date: '2008-05-31', title: 'World is Mine', artist: 'ryo', genres: ['rock'] },
  { id: 'r03', date: '2008-05-31', title: 'メルト', artist: 'ryo', genres: ['pop'] },
  { id: 'r04', date: '2008-01-01', title: '初音ミクの消失', artist: 'cosMo@暴走P', genres: ['rock'] },
  { id: 'r05', date: '2010-02-02', title: 'Café Ünïcode', artist: 'Mélodie', genres: [] },
  { id: 'r06', date: '2011-03-03', title: 'ミクsong', artist: 'Supercell', genres: ['pop', 'rock'] },
  { id: 'r07', date: '2012-04-04', title: 'Melt', artist: 'a cover band', genres: ['rock'] },
  { id: 'r08', date: '2013-05-05', title: 'Melt away', artist: 'someone', genres: ['rock'] },
  { id: 'r09', date: '2014-06-06', title: 'Away we melt', artist: 'someone', genres: ['pop'] },
  { id: 'r10', date: '2015-07-07', title: 'Snow', artist: 'Melting Pot', genres: ['pop'] },
];

/** Page order: release date, then id (as the database orders them). */
const inOrder = [...releases].sort((a, b) => (a.date + a.id < b.date + b.id ? -1 : 1));

function build(): CatalogueIndex {
  const builder = CatalogueIndex.builder();
  for (const release of inOrder) {
    builder.release({
      id: release.id,
      release_date: release.date,
      search_title: searchableText(release.title),
      search_artist: searchableText(release.artist),
    });
  }
  // The filter values in another order, in two batches, as the database hands them over.
  const values = releases.flatMap((release) =>
    release.genres.map((genre) => ({ release_id: release.id, value_key: genre })),
  );
  builder.values('genres', values.slice(0, 4));
  builder.values('genres', values.slice(4));
  return builder.done();
}

const index = build();
const noFilters = { vocaloid_banks: [], genres: [], languages: [] };

/** SPEC §3.6 the plain way: every term in title or artist, then the tiers, each newest first. */
function expected(q: string | undefined, genres: string[], sort: SortOrder): string[] {
  const search = q === undefined ? undefined : parseSearch(q);
  const holds = (field: string, term: { text: string; cjk: boolean }) =>
    field.includes(term.cjk ? term.text : ` ${term.text}`);
  const matching = inOrder.filter((release) => {
    const fields = [searchableText(release.title), searchableText(release.artist)];
    const searched =
      !search ||
      (search.tokens.length > 0 && search.tokens.every((term) => fields.some((field) => holds(field, term))));
    return searched && (genres.length === 0 || release.genres.some((genre) => genres.includes(genre)));
  });
  if (sort === 'release_date') return matching.map((release) => release.id);
  const newest = matching.reverse();
  if (sort === '-release_date' || !search) return newest.map((release) => release.id);
  const tier = (release: Release) => {
    const title = searchableText(release.title);
    if (title === search.text) return 0;
    if (title.startsWith(search.text)) return 1;
    return search.tokens.every((term) => holds(title, term)) ? 2 : 3;
  };
  return [0, 1, 2, 3].flatMap((t) => newest.filter((release) => tier(release) === t).map((release) => release.id));
}

/** Every page of a query, `limit` at a time, following the cursors. */
function walk(q: string | undefined, genres: string[], sort: SortOrder, limit: number): string[] {
  const request: ReleasePageRequest = {
    filters: filterKeys({ ...noFilters, genres }),
    search: q === undefined ? undefined : parseSearch(q),
    sort,
    limit,
    after: undefined,
  };
  const ids: string[] = [];
  for (let pages = 0; pages < 20; pages++) {
    const page = index.page(request)!;
    ids.push(...page.ids);
    if (!page.next) return ids;
    request.after = page.next;
  }
  throw new Error('more pages than releases');
}

describe('CatalogueIndex', () => {
  it.each([
    ['a Latin word beginning', 'mel'],
    ['a whole word, in title or artist', 'ryo'],
    ['a word inside another is no match', 'cell'],
    ['two terms, each in either field', 'melt supercell'],
    ['diacritics and case', 'CAFE unicode'],
    ['one CJK character, anywhere', 'ミ'],
    ['a CJK run inside a longer one', '音ミク'],
    ['CJK characters all present but not together', '初ク'],
    ['a CJK term and a Latin one', 'ミク song'],
    ['every tier at once', 'melt'],
    ['two words, the title starting with them', 'melt away'],
    ['a term nothing holds', 'zzz'],
    ['no terms at all', '!!!'],
  ])('%s (%s): every sort, with and without a filter, a page at a time', (_name, q) => {
    for (const sort of ['-release_date', 'release_date', 'relevance'] as const) {
      for (const genres of [[], ['rock']]) {
        for (const limit of [1, 2, 50]) {
          expect(walk(q, genres, sort, limit), `${sort} ${genres.join()} limit ${limit}`).toEqual(
            expected(q, genres, sort),
          );
        }
      }
    }
  });

  it('pages filters alone, and counts facets in context', () => {
    expect(walk(undefined, ['pop'], '-release_date', 2)).toEqual(expected(undefined, ['pop'], '-release_date'));
    const { counts, total } = index.facetsInContext({
      filters: filterKeys({ ...noFilters, genres: ['rock'] }),
      search: parseSearch('melt'),
    });
    // melt: r01, r07, r08, r09 (title) and r10 (artist); rock among them: r07 and r08.
    expect(total).toBe(2);
    expect(counts.genres).toEqual(
      new Map([
        ['pop', 3],
        ['rock', 2],
      ]),
    );
  });

  it('counts facets of a search of no terms as nothing, after the whole catalogue was counted', () => {
    const query = (q?: string) => ({
      filters: filterKeys(noFilters),
      search: q === undefined ? undefined : parseSearch(q),
    });
    expect(index.facetsInContext(query()).total).toBe(releases.length);
    expect(index.facetsInContext(query('!!!'))).toEqual({
      counts: { vocaloid_banks: new Map(), genres: new Map(), languages: new Map() },
      total: 0,
    });
    // And the kept passes answer again as they did the first time.
    expect(index.facetsInContext(query('melt')).total).toBe(5);
    expect(index.facetsInContext(query('melt')).total).toBe(5);
  });

  it('leaves a cursor whose release is not here to the database', () => {
    const request: ReleasePageRequest = {
      filters: filterKeys(noFilters),
      search: parseSearch('melt'),
      sort: '-release_date',
      limit: 2,
      after: { releaseDate: '2009-01-01', id: 'gone' },
    };
    expect(index.page(request)).toBeUndefined();
  });
});
