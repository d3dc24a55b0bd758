import { limits } from '@releases/contract/wire';
import { describe, expect, it } from 'vitest';
import {
  emptyReleaseQuery,
  formatCatalogueQuery,
  formatReleaseQuery,
  isChosen,
  parseReleaseQuery,
  readReleaseQuery,
  sortOrdersFor,
  toggleValue,
  withSearch,
  type ReleaseQuery,
} from './release-query.js';

describe('release query ⇄ URL', () => {
  it('is empty for the default view, both ways', () => {
    expect(parseReleaseQuery('')).toEqual(emptyReleaseQuery);
    expect(formatReleaseQuery(emptyReleaseQuery)).toBe('');
  });

  it("writes the API's own parameters, comma-separated, values percent-encoded, default sort left out", () => {
    const query: ReleaseQuery = {
      vocaloid_banks: ['Hatsune Miku', 'GUMI'],
      genres: ['rock'],
      languages: ['zh-Hans'],
      q: '',
      sort: 'release_date',
    };
    const search = formatReleaseQuery(query);
    expect(search).toBe('?vocaloid_banks=Hatsune%20Miku,GUMI&genres=rock&languages=zh-Hans&sort=release_date');
    expect(parseReleaseQuery(search)).toEqual(query);
    expect(formatReleaseQuery({ ...query, sort: '-release_date' })).not.toContain('sort');
  });

  it('round-trips values with characters that need escaping', () => {
    const query: ReleaseQuery = { ...emptyReleaseQuery, vocaloid_banks: ['初音ミク', 'A&B=C', 'x+y', '50% off'] };
    expect(parseReleaseQuery(formatReleaseQuery(query))).toEqual(query);
  });

  it('reads a link the way the API does: trimmed, empty items dropped, repeats merged, duplicates collapsed', () => {
    const query = parseReleaseQuery('?genres=rock,,%20pop%20,&genres=Rock&genres=jazz&vocaloid_banks=&unknown=1');
    expect(query.genres).toEqual(['rock', 'pop', 'jazz']);
    expect(query.vocaloid_banks).toEqual([]);
    expect(query.sort).toBe('-release_date');
  });

  it('drops what the API would refuse, so a hand-edited link still shows a page', () => {
    const many = Array.from({ length: limits.maxFilterValues + 5 }, (_, i) => `g${i}`).join(',');
    const tooLong = 'x'.repeat(limits.maxFilterValueLength + 1);
    const query = parseReleaseQuery(`?genres=${many}&languages=ja,${tooLong}&sort=sideways`);
    expect(query.genres).toHaveLength(limits.maxFilterValues);
    expect(query.languages).toEqual(['ja']);
    expect(query.sort).toBe('-release_date');
  });

  it('toggles a value in and out, case-insensitively, leaving the other filters alone', () => {
    const start: ReleaseQuery = { ...emptyReleaseQuery, genres: ['rock'] };
    const added = toggleValue(start, 'vocaloid_banks', 'GUMI');
    expect(added).toEqual({ ...start, vocaloid_banks: ['GUMI'] });
    expect(isChosen(added, 'vocaloid_banks', 'gumi')).toBe(true);
    expect(toggleValue(added, 'vocaloid_banks', 'gumi')).toEqual(start);
    expect(start.vocaloid_banks).toEqual([]);
  });
});

describe('the search in the URL', () => {
  it('round-trips any text, first in the address, and leaves out the sort when it is the search default', () => {
    for (const q of ['melt', 'Hatsune Miku', '初音 ミク', 'A&B=C+D 50% #1', 'Pokémon', 'ｍｅｌｔ']) {
      const query: ReleaseQuery = { ...emptyReleaseQuery, genres: ['rock'], q, sort: 'relevance' };
      const search = formatReleaseQuery(query);
      expect(search.startsWith(`?q=${encodeURIComponent(q)}&genres=rock`)).toBe(true);
      expect(search).not.toContain('sort');
      expect(parseReleaseQuery(search)).toEqual(query);
    }
    // A search with another order says so; the facets' key never holds the sort.
    const byDate: ReleaseQuery = { ...emptyReleaseQuery, q: 'melt', sort: '-release_date' };
    expect(formatReleaseQuery(byDate)).toBe('?q=melt&sort=-release_date');
    expect(parseReleaseQuery('?q=melt&sort=-release_date')).toEqual(byDate);
    expect(formatCatalogueQuery(byDate)).toBe('?q=melt');
  });

  it('reads a search as the API does: trimmed, blank the same as none, a + as a space', () => {
    expect(parseReleaseQuery('?q=%20%20melt%20').q).toBe('melt');
    expect(parseReleaseQuery('?q=world+is+mine').q).toBe('world is mine');
    expect(parseReleaseQuery('?q=%20%20')).toEqual(emptyReleaseQuery);
    expect(readReleaseQuery('?q=').dropped).toEqual([]);
  });

  it('offers relevance only with a search, where it is the default', () => {
    expect(sortOrdersFor('')).toEqual(['-release_date', 'release_date']);
    expect(sortOrdersFor('melt')).toContain('relevance');
    expect(parseReleaseQuery('?q=melt').sort).toBe('relevance');
    expect(parseReleaseQuery('').sort).toBe('-release_date');
  });

  it('starts a search ranked by relevance, keeps an order chosen by hand, and drops relevance with the search', () => {
    const searched = withSearch(emptyReleaseQuery, '  melt ');
    expect(searched).toEqual({ ...emptyReleaseQuery, q: 'melt', sort: 'relevance' });
    expect(withSearch(searched, 'melty').sort).toBe('relevance');
    expect(withSearch(searched, '')).toEqual(emptyReleaseQuery);
    const oldest: ReleaseQuery = { ...emptyReleaseQuery, sort: 'release_date' };
    expect(withSearch(oldest, 'melt').sort).toBe('release_date');
    expect(withSearch({ ...oldest, q: 'melt' }, '').sort).toBe('release_date');
  });
});

describe('a hand-edited address', () => {
  it('says what it left out and why, and keeps the rest', () => {
    const { query, dropped } = readReleaseQuery('?languages=ja,xx-bad&genres=rock&sort=sideways&page=2');
    expect(query).toEqual({ ...emptyReleaseQuery, genres: ['rock'], languages: ['ja'] });
    expect(dropped).toEqual([
      { parameter: 'languages', value: 'xx-bad', reason: 'is not a language tag (like ja or en)' },
      { parameter: 'sort', value: 'sideways', reason: 'is not a sort order' },
      { parameter: 'page', value: '2', reason: 'is not something the list takes' },
    ]);
    expect(readReleaseQuery('?genres=rock&languages=zh-Hans').dropped).toEqual([]);
  });

  it('drops a search the API would refuse, saying why, and relevance without a search', () => {
    const long = 'a'.repeat(limits.maxSearchLength + 1);
    const tooLong = readReleaseQuery(`?q=${long}&genres=rock&sort=relevance`);
    expect(tooLong.query).toEqual({ ...emptyReleaseQuery, genres: ['rock'] });
    expect(tooLong.dropped).toEqual([
      { parameter: 'q', value: long, reason: `must be at most ${limits.maxSearchLength} characters` },
      { parameter: 'sort', value: 'relevance', reason: 'is a sort for a search only' },
    ]);

    const control = readReleaseQuery('?q=mel%1Bt');
    expect(control.query.q).toBe('');
    expect(control.dropped[0]?.reason).toMatch(/control characters/);

    const words = Array.from({ length: limits.maxSearchTerms + 1 }, (_, i) => `w${i}`).join('%20');
    expect(readReleaseQuery(`?q=${words}`).dropped[0]?.reason).toMatch(/at most 8 terms/);

    // Exactly at the limits, it is kept.
    expect(parseReleaseQuery(`?q=${'a'.repeat(limits.maxSearchLength)}`).q).toHaveLength(limits.maxSearchLength);
    // Given twice, the first is read (the API would refuse the address) and the second is said to be left out.
    const twice = readReleaseQuery('?q=melt&q=miku');
    expect(twice.query.q).toBe('melt');
    expect(twice.dropped).toEqual([{ parameter: 'q', value: 'miku', reason: 'is a second search (one is read)' }]);
  });
});
