import { limits } from '@releases/contract/wire';
import { describe, expect, it } from 'vitest';
import {
  emptyReleaseQuery,
  formatReleaseQuery,
  isChosen,
  parseReleaseQuery,
  readReleaseQuery,
  toggleValue,
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
});
