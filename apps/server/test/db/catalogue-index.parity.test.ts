import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterKeys } from '../../src/catalogue/filters.js';
import { parseSearch } from '../../src/catalogue/search-text.js';
import { syntheticCatalogue, syntheticVocabulary } from '../../src/catalogue/synthetic.js';
import { openStorage, type Storage } from '../../src/db/index.js';
import type { ReleasePageRequest } from '../../src/catalogue/query.js';
import { startTestServer, testDatabases, type TestServer } from '../support/harness.js';

type Query = Pick<ReleasePageRequest, 'filters' | 'search' | 'sort'>;

const noFilters = { vocaloid_banks: [], genres: [], languages: [] };
const word = (i: number) => syntheticVocabulary.titleWords[i]!;
const japanese = (i: number) => syntheticVocabulary.japaneseWords[i]!;

/** Searches and filters of every shape, in every sort that applies. */
const queries: Query[] = [
  ...[
    word(0),
    word(1).slice(0, 2),
    `${word(2)} ${word(3)}`,
    japanese(0),
    [...japanese(1)][0]!,
    `${word(4)} ${japanese(2)}`,
    'zzzz',
    '!!!',
  ].flatMap((q) =>
    (['relevance', '-release_date', 'release_date'] as const).flatMap((sort) => [
      { filters: filterKeys(noFilters), search: parseSearch(q), sort },
      { filters: filterKeys({ ...noFilters, genres: ['rock', 'pop'] }), search: parseSearch(q), sort },
    ]),
  ),
  { filters: filterKeys({ ...noFilters, vocaloid_banks: ['GUMI'] }), search: undefined, sort: '-release_date' },
  {
    filters: filterKeys({ vocaloid_banks: ['Hatsune Miku', 'IA'], genres: ['rock'], languages: ['ja'] }),
    search: undefined,
    sort: 'release_date',
  },
];

/**
 * The pages the catalogue answers from memory (`CatalogueIndex`) are the database's, page for page, cursor for
 * cursor, and a walk may change from one to the other between pages (an index built or dropped meanwhile).
 */
describe.each(testDatabases())('queries from memory and from the database ($database)', ({ database, run }) => {
  let server: TestServer;
  let inDatabase: Storage;

  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database, releases: [...syntheticCatalogue(3_000, 11)] });
    inDatabase = await openStorage(server.services.config.databaseUrl, { catalogueIndex: false });
    await server.services.storage.catalogue.warmUp();
    // The comparison below means something only if one side answers from memory.
    expect(server.services.storage.catalogue.inMemory()?.releases).toBe(3_000);
  }, 120_000);
  afterAll(async () => {
    await inDatabase?.close();
    await server?.close();
  });

  it.skipIf(!run)('give the same pages, and the same cursors', async () => {
    const inMemory = server.services.storage.catalogue;
    let matched = 0;
    for (const query of queries) {
      const label = `${query.search?.text ?? ''} ${JSON.stringify(query.filters)} ${query.sort}`;
      for (const limit of [7, 100]) {
        let after: ReleasePageRequest['after'];
        let pages = 0;
        let matches = 0;
        do {
          const request = { ...query, limit, after };
          const [memory, database] = await Promise.all([
            inMemory.listReleases(request),
            inDatabase.catalogue.listReleases(request),
          ]);
          expect(memory, `${label}, page ${pages + 1} of ${limit}`).toEqual(database);
          matches += memory.releaseJson.length;
          // Every other page from the other one: the cursors are the same.
          after = (pages % 2 === 0 ? memory : database).next;
          pages++;
        } while (after && pages < 60);
        if (limit === 7 && matches > 0) matched++;
      }
    }
    // Most queries find something (a test of empty pages would prove little).
    expect(matched).toBeGreaterThan(queries.length / 2);
    // And the catalogue stayed in memory throughout: no page came from the database on both sides.
    expect(inMemory.inMemory()?.releases).toBe(3_000);
    expect(inDatabase.catalogue.inMemory()).toBeUndefined();
  });
});
