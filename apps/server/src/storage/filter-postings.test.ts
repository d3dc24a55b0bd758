import { describe, expect, it } from 'vitest';
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
    // a, c and the fourth.
    const within = Uint8Array.from([1, 0, 1, 1]);
    expect(catalogue.facetsInContext(none, within)).toEqual({
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
    const { counts, total } = catalogue.facetsInContext({ ...none, genres: ['pop'] }, within);
    expect(total).toBe(1);
    expect(counts.genres).toEqual(
      new Map([
        ['rock', 2],
        ['pop', 1],
      ]),
    );
  });
});
