import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSearch } from '../../src/catalogue/search-text.js';
import { syntheticCatalogue } from '../../src/catalogue/synthetic.js';
import { openStorage } from '../../src/db/index.js';
import { postgresSchema, testDatabases } from '../support/harness.js';

const folder = mkdtempSync(path.join(tmpdir(), 'releases-search-migration-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/**
 * What a catalogue stored before search looked like: no search columns, no search keys, no stored-title index,
 * and migration 0005 not yet run. Undone with plain SQL on a catalogue loaded by today's code.
 */
const undoSearch = [
  'delete from release_tags where kind >= 4',
  'delete from facet_values where kind >= 4',
  'drop index releases_by_search_title',
  'alter table releases drop column search_title',
  'alter table releases drop column search_artist',
  "delete from kysely_migration where name = '0005_search'",
];

const noFilters = { vocaloid_banks: [], genres: [], languages: [] };

describe.each(testDatabases())(
  'migration 0005 on a catalogue stored before search ($database)',
  ({ database, run }) => {
    it.skipIf(!run)(
      'indexes every stored release, so search finds what it would on a catalogue loaded now',
      async () => {
        const releases = [...syntheticCatalogue(1_500, 21)];
        const postgres = database === 'postgres' ? await postgresSchema() : undefined;
        const url = postgres?.url ?? `file:${path.join(folder, 'before-search.db')}`;
        try {
          const storage = await openStorage(url);
          const page = (q: string) =>
            storage.catalogue.listReleases({
              filters: noFilters,
              search: parseSearch(q),
              sort: 'relevance',
              limit: 100,
              after: undefined,
            });
          try {
            await storage.migrate();
            await storage.catalogueWrites.upsertReleases(releases, new Date());
            const searches = ['love', '初音', 'neon circuit', 'producer 007'];
            const expected = await Promise.all(searches.map(page));
            expect(expected.every((result) => result.releaseJson.length > 0)).toBe(true);
            const total = async () =>
              (await storage.catalogue.facets({ filters: noFilters, search: parseSearch('love') })).total;
            const expectedTotal = await total();

            if (postgres) {
              const client = new pg.Client({ connectionString: postgres.url });
              await client.connect();
              for (const statement of undoSearch) await client.query(statement);
              await client.end();
            } else {
              const raw = new BetterSqlite3(url.slice('file:'.length));
              for (const statement of undoSearch) raw.exec(statement);
              raw.close();
            }

            await storage.migrate();
            expect(await Promise.all(searches.map(page))).toEqual(expected);
            expect(await total()).toBe(expectedTotal);
          } finally {
            await storage.close();
          }
        } finally {
          await postgres?.drop();
        }
      },
      120_000,
    );
  },
);
