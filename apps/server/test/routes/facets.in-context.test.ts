import type { ParsedReleaseInput } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterKeys } from '../../src/catalogue/filters.js';
import { parseSearch, searchableText } from '../../src/catalogue/search-text.js';
import { syntheticCatalogue } from '../../src/catalogue/synthetic.js';
import { dateSpans } from '../../src/db/catalogue/catalogue-reads.js';
import { openStorage, type Storage } from '../../src/db/index.js';
import { startTestServer, testDatabases, type TestServer } from '../support/harness.js';

type Name = 'vocaloid_banks' | 'genres' | 'languages';
const names: Name[] = ['vocaloid_banks', 'genres', 'languages'];

/** The facets in context as SPEC §3.6 defines them, counted the plain way over every release. */
function expectedFacets(releases: ParsedReleaseInput[], filters: Record<Name, string[]>, q: string | undefined) {
  const terms = q === undefined ? [] : parseSearch(q).tokens;
  const matchesSearch = (release: ParsedReleaseInput) => {
    const fields = [searchableText(release.title), searchableText(release.artist)];
    return terms.every((term) =>
      fields.some((field) => (term.cjk ? field.includes(term.text) : field.includes(` ${term.text}`))),
    );
  };
  const keys = filterKeys(filters);
  const matchesFilter = (release: ParsedReleaseInput, name: Name) =>
    keys[name].length === 0 || release[name].some((value) => keys[name].includes(value.toLowerCase()));
  const counted = Object.fromEntries(names.map((name) => [name, new Map<string, number>()])) as Record<
    Name,
    Map<string, number>
  >;
  let total = 0;
  for (const release of releases) {
    if (!matchesSearch(release)) continue;
    if (names.every((name) => matchesFilter(release, name))) total++;
    for (const name of names) {
      if (!names.every((other) => other === name || matchesFilter(release, other))) continue;
      for (const value of new Set(release[name].map((v) => v.toLowerCase()))) {
        counted[name].set(value, (counted[name].get(value) ?? 0) + 1);
      }
    }
  }
  return { counted, total };
}

describe('dateSpans', () => {
  it('cuts the catalogue into about equal, adjacent, open-ended spans', () => {
    expect(dateSpans({ first: '2000-01-01', last: '2000-01-10' }, 1)).toEqual([undefined]);
    expect(dateSpans(undefined, 5)).toEqual([undefined]);
    expect(dateSpans({ first: '2000-01-01', last: '2000-01-10' }, 2)).toEqual([
      { from: undefined, to: '2000-01-06' },
      { from: '2000-01-06', to: undefined },
    ]);
    expect(dateSpans({ first: '2000-01-01', last: '2000-01-01' }, 3)).toEqual([
      { from: undefined, to: '2000-01-01' },
      { from: '2000-01-01', to: '2000-01-02' },
      { from: '2000-01-02', to: undefined },
    ]);
  });
});

describe.each(testDatabases())(
  'facets in context agree with counting every release ($database)',
  ({ database, run }) => {
    // Several times the matches the SQLite backend counts at once (`matchesPerPart`): a broad search is counted in parts.
    const releases = [...syntheticCatalogue(24_000, 5)];
    let server: TestServer;
    let inDatabase: Storage;
    beforeAll(async () => {
      if (!run) return;
      server = await startTestServer({ database, releases });
      inDatabase = await openStorage(server.services.config.databaseUrl, { catalogueIndex: false });
    }, 180_000);
    afterAll(async () => {
      await inDatabase?.close();
      await server?.close();
    });

    it.skipIf(!run).each([
      ['a search matching every release', {}, 'producer'],
      ['a common word', {}, 'love'],
      ['a Japanese term', {}, '初音'],
      ['two terms and a filter', { genres: ['rock'] }, 'love star'],
      ['two filters', { genres: ['rock', 'metal'], languages: ['ja'] }, undefined],
      ['one filter', { vocaloid_banks: ['Hatsune Miku'] }, undefined],
      ['every filter', { vocaloid_banks: ['GUMI', 'IA'], genres: ['rock'], languages: ['en', 'ja'] }, undefined],
      [
        'a search and every filter',
        { vocaloid_banks: ['Hatsune Miku', 'GUMI'], genres: ['rock'], languages: ['en'] },
        'neon',
      ],
    ] as Array<[string, Partial<Record<Name, string[]>>, string | undefined]>)('%s', async (_name, chosen, q) => {
      const filters = { vocaloid_banks: [], genres: [], languages: [], ...chosen };
      const expected = expectedFacets(releases, filters, q);
      // Both ways: counted in the database (a storage without the catalogue in memory, as any storage is while
      // it reads it), and from the catalogue in memory (`CatalogueIndex`).
      for (const attempt of ['in the database', 'in memory']) {
        const catalogue = attempt === 'in memory' ? server.services.storage.catalogue : inDatabase.catalogue;
        const facets = await catalogue.facets({
          filters: filterKeys(filters),
          search: q === undefined ? undefined : parseSearch(q),
        });
        expect(facets.total, `attempt ${attempt}`).toBe(expected.total);
        for (const name of names) {
          const got = new Map(facets[name].filter((f) => f.count > 0).map((f) => [f.value.toLowerCase(), f.count]));
          expect(got, `${name}, attempt ${attempt}`).toEqual(expected.counted[name]);
        }
      }
    });
  },
);
