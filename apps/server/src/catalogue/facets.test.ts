import { describe, expect, it } from 'vitest';
import { combinePasses, facetPasses, listFacets } from './facets.js';
import { filterKeys, perFilter } from './filters.js';

const chosen = filterKeys({ vocaloid_banks: ['GUMI'], genres: [], languages: ['ja', 'en'] });

describe('facets in context', () => {
  it('count the unchosen filters over the whole query first, then each chosen one without itself', () => {
    expect(facetPasses(chosen)).toEqual([
      { filters: ['genres'], except: undefined },
      { filters: ['vocaloid_banks'], except: 'vocaloid_banks' },
      { filters: ['languages'], except: 'languages' },
    ]);
    // Every filter chosen: the first pass counts no values, only the total.
    expect(facetPasses(filterKeys({ vocaloid_banks: ['a'], genres: ['b'], languages: ['c'] }))[0]).toEqual({
      filters: [],
      except: undefined,
    });
  });

  it('take each filter’s counts from its own pass, zeros dropped, and the total from the whole query’s', () => {
    const passes = facetPasses(chosen);
    const { counts, total } = combinePasses(passes, [
      { counts: { genres: new Map([['rock', 2]]), vocaloid_banks: new Map([['ia', 9]]) }, total: 2 },
      {
        counts: {
          vocaloid_banks: new Map([
            ['gumi', 2],
            ['ia', 0],
          ]),
        },
        total: 5,
      },
      { counts: { languages: new Map([['ja', 1]]) }, total: 4 },
    ]);
    expect(total).toBe(2);
    expect(counts.genres).toEqual(new Map([['rock', 2]]));
    // Not the first pass's bank counts: a chosen filter counts without itself.
    expect(counts.vocaloid_banks).toEqual(new Map([['gumi', 2]]));
    expect(counts.languages).toEqual(new Map([['ja', 1]]));
  });

  it('list values most common first, then by key, spelled for display, and chosen values at 0 last', () => {
    const display = perFilter(
      () =>
        new Map([
          ['gumi', 'GUMI'],
          ['ia', 'IA'],
          ['ja', 'ja'],
        ]),
    );
    const counts = perFilter(() => new Map<string, number>());
    counts.vocaloid_banks.set('ia', 3).set('gumi', 3).set('zzz', 5);
    counts.languages.set('ja', 2);
    const listed = listFacets(chosen, display, counts);
    expect(listed.vocaloid_banks).toEqual([
      { value: 'zzz', count: 5 },
      { value: 'GUMI', count: 3 },
      { value: 'IA', count: 3 },
    ]);
    expect(listed.languages).toEqual([
      { value: 'ja', count: 2 },
      { value: 'en', count: 0 },
    ]);
    expect(listed.genres).toEqual([]);
  });
});
