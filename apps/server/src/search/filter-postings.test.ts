import { describe, expect, it } from 'vitest';
import { addAll, emptySet } from './bit-sets.js';
import { FilterPostings, type PostingRow } from './filter-postings.js';

const none = { vocaloid_banks: [], genres: [], languages: [] };

function postings(releases: Record<string, Array<[PostingRow['name'], string]>>): FilterPostings {
  const builder = FilterPostings.builder();
  const rows = Object.values(releases).flatMap((values, ordinal) =>
    values.map(([name, value_key]) => ({ ordinal, name, value_key })),
  );
  // In two batches, one release's rows split between them, as the database hands them over.
  builder.add(rows.slice(0, 3));
  builder.add(rows.slice(3));
  // And a fourth release, holding no value at all.
  return builder.done(Object.keys(releases).length + 1);
}

const catalogue = postings({
  a: [
    ['vocaloid_banks', 'gumi'],
    ['genres', 'rock'],
    ['languages', 'ja'],
  ],
  b: [
    ['vocaloid_banks', 'gumi'],
    ['vocaloid_banks', 'ia'],
    ['genres', 'pop'],
    ['languages', 'en'],
  ],
  c: [
    ['vocaloid_banks', 'ia'],
    ['genres', 'rock'],
    ['genres', 'pop'],
    ['languages', 'ja'],
  ],
});

describe('FilterPostings', () => {
  it('counts each filter over the others, and the releases matching all', () => {
    expect(catalogue.releases).toBe(4);
    const { counts, total } = catalogue.facetsInContext({ ...none, genres: ['rock'], languages: ['ja'] });
    expect(total).toBe(2);
    // Banks over rock and ja: a and c. Genres over ja only: a and c. Languages over rock only: a and c.
    expect(counts.vocaloid_banks).toEqual(
      new Map([
        ['gumi', 1],
        ['ia', 1],
      ]),
    );
    expect(counts.genres).toEqual(
      new Map([
        ['rock', 2],
        ['pop', 1],
      ]),
    );
    expect(counts.languages).toEqual(new Map([['ja', 2]]));
  });

  it('reads values within one filter as OR', () => {
    const { counts, total } = catalogue.facetsInContext({ ...none, vocaloid_banks: ['gumi', 'ia'], genres: ['pop'] });
    expect(total).toBe(2);
    expect(counts.languages).toEqual(
      new Map([
        ['en', 1],
        ['ja', 1],
      ]),
    );
    expect(counts.genres).toEqual(
      new Map([
        ['rock', 2],
        ['pop', 2],
      ]),
    );
  });

  it('counts a value nobody holds as nothing', () => {
    const { counts, total } = catalogue.facetsInContext({ ...none, genres: ['metal'] });
    expect(total).toBe(0);
    expect(counts.vocaloid_banks.size).toBe(0);
    expect(counts.genres).toEqual(
      new Map([
        ['rock', 2],
        ['pop', 2],
      ]),
    );
  });

  it('counts among the releases a search matched only, the release without values included', () => {
    // a, c and the fourth (ordinals 0, 2 and 3).
    const within = Int32Array.from([0b1101]);
    expect(catalogue.facetsInContext(none, { key: 'a c 4', matches: () => within })).toEqual({
      counts: {
        vocaloid_banks: new Map([
          ['gumi', 1],
          ['ia', 1],
        ]),
        genres: new Map([
          ['rock', 2],
          ['pop', 1],
        ]),
        languages: new Map([['ja', 2]]),
      },
      total: 3,
    });
    const { counts, total } = catalogue.facetsInContext(
      { ...none, genres: ['pop'] },
      { key: 'a c 4', matches: () => within },
    );
    expect(total).toBe(1);
    expect(counts.genres).toEqual(
      new Map([
        ['rock', 2],
        ['pop', 1],
      ]),
    );
  });
});

describe('FilterPostings at a size where common values are sets and rare ones lists', () => {
  // 200 releases: a value on more than 200 / 32 of them is kept as a set, the others as lists.
  const size = 200;
  const genresOf = (o: number) => [o % 2 === 0 ? 'common' : 'other', ...(o % 50 === 7 ? ['rare'] : [])];
  const languageOf = (o: number) => (o % 3 === 0 ? 'ja' : 'en');
  const builder = FilterPostings.builder();
  // Newest first, as no database hands them over: the order of the rows must not matter.
  for (let o = size - 1; o >= 0; o--) {
    builder.add([
      ...genresOf(o).map((value_key) => ({ ordinal: o, name: 'genres' as const, value_key })),
      { ordinal: o, name: 'languages' as const, value_key: languageOf(o) },
    ]);
  }
  const big = builder.done(size);

  it.each([
    [{ ...none, genres: ['rare'] }],
    [{ ...none, genres: ['rare', 'common'] }],
    [{ ...none, genres: ['rare'], languages: ['en'] }],
    [{ ...none, genres: ['other'], languages: ['ja'] }],
  ])('counts as a plain count does (%j)', (filters) => {
    const holds = (o: number, name: 'genres' | 'languages', except?: string) =>
      name === except ||
      filters[name].length === 0 ||
      (name === 'genres' ? genresOf(o) : [languageOf(o)]).some((value) => filters[name].includes(value));
    const plain = (name: 'genres' | 'languages') => {
      const counted = new Map<string, number>();
      for (let o = 0; o < size; o++) {
        if (!holds(o, 'genres', name) || !holds(o, 'languages', name)) continue;
        for (const value of name === 'genres' ? genresOf(o) : [languageOf(o)]) {
          counted.set(value, (counted.get(value) ?? 0) + 1);
        }
      }
      return counted;
    };
    const { counts, total } = big.facetsInContext(filters);
    expect(counts.genres).toEqual(plain('genres'));
    expect(counts.languages).toEqual(plain('languages'));
    expect(total).toBe([...Array(size).keys()].filter((o) => holds(o, 'genres') && holds(o, 'languages')).length);
  });

  // Values spread thin (every one a list, fewer than one release in 32), so that counting walks the members and
  // their values rather than intersecting: the few matches themselves, or the others of most of the catalogue.
  const genreOf = (o: number) => `g${o % 40}`;
  const languagesOf = (o: number) => [`l${o % 50}`, ...(o % 9 === 0 ? [`l${(o + 1) % 50}`] : [])];
  const spreadBuilder = FilterPostings.builder();
  for (let o = 0; o < size; o++) {
    spreadBuilder.add([
      { ordinal: o, name: 'genres' as const, value_key: genreOf(o) },
      ...languagesOf(o).map((value_key) => ({ ordinal: o, name: 'languages' as const, value_key })),
    ]);
  }
  const spread = spreadBuilder.done(size);

  it.each([
    ['few', (o: number) => o % 7 === 0],
    ['most', (o: number) => o % 5 !== 0],
  ])('counts every filter over %s matches of a search as a plain count does', (which, matched) => {
    const within = emptySet(size);
    addAll(within, Int32Array.from({ length: size }, (_, o) => o).filter(matched));
    const plain = (valuesOf: (o: number) => string[]) => {
      const counted = new Map<string, number>();
      for (let o = 0; o < size; o++) {
        if (matched(o)) for (const value of valuesOf(o)) counted.set(value, (counted.get(value) ?? 0) + 1);
      }
      return counted;
    };
    const { counts, total } = spread.facetsInContext(none, { key: `search ${which}`, matches: () => within });
    expect(counts.genres).toEqual(plain((o) => [genreOf(o)]));
    expect(counts.languages).toEqual(plain(languagesOf));
    expect(counts.vocaloid_banks.size).toBe(0);
    expect(total).toBe([...Array(size).keys()].filter(matched).length);
    // And one filter chosen: the other counted over the search's matches and that filter's value.
    const chosen = spread.facetsInContext(
      { ...none, genres: ['g0'] },
      { key: `search ${which}`, matches: () => within },
    );
    expect(chosen.counts.languages).toEqual(plain((o) => (genreOf(o) === 'g0' ? languagesOf(o) : [])));
    expect(chosen.counts.genres).toEqual(plain((o) => [genreOf(o)]));
  });
});
