import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticCatalogue } from '../../src/catalogue/synthetic.js';
import type { ReleasePageRequest } from '../../src/catalogue/query.js';
import { filterKeys } from '../../src/catalogue/filters.js';
import { parseSearch } from '../../src/catalogue/search-text.js';
import {
  buildReleasePageQuery,
  facetCountsQuery,
  matchCountQuery,
  matchingReleases,
  type KeyCounts,
} from '../../src/db/catalogue/page-query.js';
import { tagKinds } from '../../src/db/schema.js';
import type { Database } from '../../src/db/schema.js';
import { searchPlanCases } from '../support/search-plan-cases.js';
import { startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
let raw: BetterSqlite3.Database;
let db: Kysely<Database>;
let stats: KeyCounts;

beforeAll(async () => {
  server = await startTestServer({ releases: [...syntheticCatalogue(5_000, 11)] });
  raw = new BetterSqlite3(server.databaseFile, { readonly: true });
  db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  const rows = raw.prepare('select kind, value_key, release_count from facet_values').all() as Array<{
    kind: number;
    value_key: string;
    release_count: number;
  }>;
  const byKind = new Map<number, Map<string, number>>();
  for (const row of rows)
    (byKind.get(row.kind) ?? byKind.set(row.kind, new Map()).get(row.kind)!).set(row.value_key, row.release_count);
  stats = (kind, key) => byKind.get(kind)?.get(key) ?? 0;
});
afterAll(async () => {
  raw.close();
  await server.close();
});

/** One step of SQLite's plan, and the steps of the same (sub)query as it, itself included. */
interface Step {
  detail: string;
  siblings: string[];
}

function explainSteps(compiled: { sql: string; parameters: readonly unknown[] }): Step[] {
  const rows = raw.prepare(`explain query plan ${compiled.sql}`).all(...(compiled.parameters as unknown[])) as Array<{
    parent: number;
    detail: string;
  }>;
  return rows.map((row) => ({
    detail: row.detail,
    siblings: rows.filter((other) => other.parent === row.parent).map((other) => other.detail),
  }));
}

/** The plan's steps as text, one per line. */
function details(steps: Step[]): string {
  return steps.map((step) => step.detail).join('\n');
}

function explain(compiled: { sql: string; parameters: readonly unknown[] }): string[] {
  return explainSteps(compiled).map((step) => step.detail);
}

function plan(request: Partial<ReleasePageRequest & { tier: number }>): string[] {
  return pagePlan(request).map((step) => step.detail);
}

function pagePlan(request: Partial<ReleasePageRequest & { tier: number }>): Step[] {
  const compiled = buildReleasePageQuery(
    {
      filters: { vocaloid_banks: [], genres: [], languages: [] },
      sort: '-release_date',
      limit: 20,
      after: undefined,
      ...request,
    },
    stats,
  )!.compile(db);
  return explainSteps(compiled);
}

/**
 * No step reads a whole table, and no step sorts the (unbounded) matches of a filter or term: each key's range
 * is read in the index's own order and stops at the page. Sorts a page may have are of what those ranges gave,
 * at most a page per key: the union of the ranges (each side of SQLite's merge), the page assembled from it. A
 * sort in the same (sub)query as a range of `release_tags` (`t`, or a probe `o`) would sort every match of
 * that key. `counting` is for the facets in context, which count every match by design: their DISTINCT and
 * GROUP BY may sort them.
 */
function expectIndexedOnly(steps: Step[], options: { counting?: boolean } = {}): void {
  const text = details(steps);
  for (const { detail, siblings } of steps) {
    expect(detail, text).not.toMatch(/^SCAN (releases|release_tags|r|t|o)\b(?!.*USING)/);
    if (!/TEMP B-TREE/.test(detail)) continue;
    if (options.counting && /FOR (DISTINCT|GROUP BY)$/.test(detail)) continue;
    expect(detail, text).toMatch(/FOR ORDER BY$/);
    const ranges = siblings.filter((sibling) => /^(SEARCH|SCAN) (t|o|release_tags)\b/.test(sibling));
    expect(ranges, `${detail} beside ${ranges.join(', ')}: a sort of every match of a key\n${text}`).toEqual([]);
  }
}

describe('query plans (SQLite EXPLAIN QUERY PLAN)', () => {
  it('an unfiltered page walks the date index, with no sort step', () => {
    const steps = pagePlan({ after: { releaseDate: '2015-01-01', id: 'rel_x' } });
    expect(details(steps)).toMatch(/USING (COVERING )?INDEX releases_by_date/);
    expect(details(steps)).not.toMatch(/TEMP B-TREE/);
    expectIndexedOnly(steps);
  });

  it('a selective filter reads only its own index range, not the date index', () => {
    const steps = pagePlan({ filters: { vocaloid_banks: ['prima'], genres: [], languages: [] } });
    const text = details(steps);
    expect(text).toMatch(/SEARCH t USING PRIMARY KEY \(kind=\? AND value_key=\?\)/);
    expect(text).not.toMatch(/releases_by_date/);
    expect(text).toMatch(/SEARCH r USING INDEX sqlite_autoindex_releases_1 \(id=\?\)/);
    expectIndexedOnly(steps);
  });

  it('a broad filter combined with another probes the second by index and stops at the page size', () => {
    const steps = pagePlan({
      filters: { vocaloid_banks: ['hatsune miku', 'gumi'], genres: ['rock'], languages: ['ja'] },
      after: { releaseDate: '2020-06-01', id: 'rel_x' },
    });
    const text = details(steps);
    // Each driver value is one primary-key range with the keyset bound folded in.
    expect(text).toMatch(
      /SEARCH t USING PRIMARY KEY \(kind=\? AND value_key=\? AND \(release_date,release_id\)<\(\?,\?\)\)/,
    );
    expect(text).toMatch(
      /SEARCH o (EXISTS )?USING (COVERING )?INDEX release_tags_by_release \(release_id=\? AND kind=\? AND value_key=\?\)/,
    );
    expect(text).not.toMatch(/releases_by_date/);
    expectIndexedOnly(steps);
  });

  it('chooses the most selective filter to drive the query', () => {
    const steps = pagePlan({ filters: { vocaloid_banks: ['prima'], genres: ['rock'], languages: ['ja'] } });
    const compiled = buildReleasePageQuery(
      {
        filters: { vocaloid_banks: ['prima'], genres: ['rock'], languages: ['ja'] },
        sort: '-release_date',
        limit: 20,
        after: undefined,
      },
      stats,
    )!.compile(db);
    // The bank (kind 1) is the driver: its value is bound first, in the primary-key range.
    expect(compiled.parameters.slice(0, 2)).toEqual([1, 'prima']);
    expectIndexedOnly(steps);
  });

  describe('search (q)', () => {
    const deep = { releaseDate: '2015-01-01', id: 'rel_x' };
    const searches = searchPlanCases;

    it.each(searches)('%s reads its own key ranges, never the date index or a whole table', (_name, q) => {
      for (const sort of ['-release_date', 'release_date'] as const) {
        for (const after of [undefined, deep]) {
          const steps = pagePlan({ search: parseSearch(q), sort, after });
          const text = details(steps);
          expect(text).toMatch(/SEARCH t USING PRIMARY KEY \(kind=\? AND value_key=\?/);
          expect(text).not.toMatch(/releases_by_date/);
          expectIndexedOnly(steps);
        }
      }
    });

    it('other terms and filters are index probes on each candidate', () => {
      const steps = pagePlan({
        search: parseSearch('neon circuit'),
        filters: { vocaloid_banks: ['hatsune miku'], genres: [], languages: [] },
      });
      expect(details(steps)).toMatch(
        /SEARCH o (EXISTS )?USING (COVERING )?INDEX release_tags_by_release \(release_id=\? AND kind=\? AND value_key=\?\)/,
      );
      expectIndexedOnly(steps);
    });

    it('relevance: the first tier is a range of the stored title index, the others key ranges', () => {
      for (const [, q] of searches) {
        for (const after of [undefined, { ...deep, tier: 0 }]) {
          const exact = plan({ search: parseSearch(q), sort: 'relevance', tier: 0, after }).join('\n');
          expect(exact).toMatch(/SEARCH r USING INDEX releases_by_search_title \(search_title=\?/);
          expect(exact).not.toMatch(/TEMP B-TREE/);
        }
        for (const tier of [1, 2, 3]) {
          for (const after of [undefined, { ...deep, tier }]) {
            const steps = pagePlan({ search: parseSearch(q), sort: 'relevance', tier, after });
            expect(details(steps), `tier ${tier}`).toMatch(/SEARCH t USING PRIMARY KEY \(kind=\? AND value_key=\?/);
            expect(details(steps)).not.toMatch(/releases_by_date/);
            expectIndexedOnly(steps);
          }
        }
      }
    });

    it('facets in context count over the matches, probing each match by index', () => {
      const query = {
        filters: filterKeys({ vocaloid_banks: ['Hatsune Miku'], genres: ['rock'], languages: [] }),
        search: parseSearch('love'),
      };
      const matching = matchingReleases(query, stats, tagKinds.languages);
      if (typeof matching !== 'object') throw new Error('expected a query');
      for (const steps of [
        explainSteps(facetCountsQuery(matching.select(), [tagKinds.vocaloid_banks, tagKinds.genres]).compile(db)),
        explainSteps(matchCountQuery(matching.select({ from: '2010-01-01', to: '2015-01-01' })).compile(db)),
      ]) {
        expect(details(steps)).toMatch(/SEARCH t USING PRIMARY KEY \(kind=\? AND value_key=\?/);
        expectIndexedOnly(steps, { counting: true });
      }
      // The matches are the outer loop (CROSS JOIN), each one's values one range of its own index entries.
      const counting = explain(
        facetCountsQuery(matching.select(), [tagKinds.vocaloid_banks, tagKinds.genres]).compile(db),
      ).join('\n');
      expect(counting).toMatch(
        /SCAN m[\s\S]*SEARCH f USING COVERING INDEX release_tags_by_release \(release_id=\? AND kind>\? AND kind<\?\)/,
      );
    });
  });
});
