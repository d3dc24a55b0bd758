import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
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
import { startTestServer, testPostgresUrl, type TestServer } from '../support/harness.js';

if (!testPostgresUrl) {
  console.warn('PostgreSQL query plan tests skipped: set TEST_DATABASE_URL to run them.');
}

/** One node of `EXPLAIN (FORMAT JSON)`. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* walk(child);
}

const describeIf = describe.skipIf(!testPostgresUrl);

describeIf('query plans (PostgreSQL EXPLAIN)', () => {
  let server: TestServer;
  let pool: pg.Pool;
  let db: Kysely<Database>;
  let stats: KeyCounts;

  beforeAll(async () => {
    // Enough releases that a sequential scan would be the planner's choice if an index did not serve the query;
    // the import analyses the tables itself (autovacuum may be off, as it is on this machine).
    server = await startTestServer({ database: 'postgres', releases: [...syntheticCatalogue(30_000, 11)] });
    pool = new pg.Pool({ connectionString: server.services.config.databaseUrl, max: 2 });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const rows = await db.selectFrom('facet_values').select(['kind', 'value_key', 'release_count']).execute();
    const byKind = new Map<number, Map<string, number>>();
    for (const row of rows)
      (byKind.get(row.kind) ?? byKind.set(row.kind, new Map()).get(row.kind)!).set(row.value_key, row.release_count);
    stats = (kind, key) => byKind.get(kind)?.get(key) ?? 0;
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await server?.close();
  });

  it('vacuums the imported catalogue, so that index-only reads can skip the table', async () => {
    // Only VACUUM marks pages all-visible (ANALYZE reads the visibility map; it does not fill it), and autovacuum
    // is off on this machine and would not have run yet anyway. Whether the pages end up all-visible is not the
    // import's to promise: any transaction in the database older than the import (another test file's, a long
    // report's) holds them back until a later vacuum. That the import ran its own VACUUM is: `last_vacuum` is
    // set by a VACUUM command only (autovacuum sets `last_autovacuum`).
    const { rows } = await pool.query<{ relname: string; vacuumed: boolean }>(
      `select relname, last_vacuum is not null as vacuumed from pg_stat_user_tables
       where relid in ('releases'::regclass, 'release_tags'::regclass, 'facet_values'::regclass) order by relname`,
    );
    expect(rows).toEqual([
      { relname: 'facet_values', vacuumed: true },
      { relname: 'release_tags', vacuumed: true },
      { relname: 'releases', vacuumed: true },
    ]);
  });

  async function explain(compiled: { sql: string; parameters: readonly unknown[] }): Promise<PlanNode[]> {
    const { rows } = await pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `explain (format json) ${compiled.sql}`,
      compiled.parameters as unknown[],
    );
    return [...walk(rows[0]!['QUERY PLAN'][0]!.Plan)];
  }

  async function plan(request: Partial<ReleasePageRequest & { tier: number }>): Promise<PlanNode[]> {
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
    const { rows } = await pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `explain (format json) ${compiled.sql}`,
      compiled.parameters as unknown[],
    );
    return [...walk(rows[0]!['QUERY PLAN'][0]!.Plan)];
  }

  const describePlan = (nodes: PlanNode[]) =>
    nodes.map((node) => `${node['Node Type']} ${node['Relation Name'] ?? ''} ${node['Index Name'] ?? ''}`).join('\n');

  /** No step reads a whole catalogue table, and any sort sorts only what per-value LIMITs already bounded. */
  function expectIndexedOnly(nodes: PlanNode[], boundedSortRows: number): void {
    for (const node of nodes) {
      // A bitmap scan is index-driven (a range of the primary key), which the planner may prefer for a
      // small range; a sequential scan reads the whole table.
      if (node['Node Type'] === 'Seq Scan') {
        expect(node['Relation Name'], describePlan(nodes)).not.toMatch(/^(releases|release_tags)$/);
      }
      if (node['Node Type'] === 'Sort')
        expect(node['Plan Rows'], describePlan(nodes)).toBeLessThanOrEqual(boundedSortRows);
    }
  }

  const indexesUsed = (nodes: PlanNode[]) => new Set(nodes.map((node) => node['Index Name']).filter(Boolean));
  const deep = { releaseDate: '2012-06-01', id: 'rel_x' };

  it.each([
    ['newest first, page one', { sort: '-release_date' as const }],
    ['newest first, a deep page', { sort: '-release_date' as const, after: deep }],
    ['oldest first, a deep page', { sort: 'release_date' as const, after: deep }],
  ])('an unfiltered page walks the date index with no sort (%s)', async (_name, request) => {
    const nodes = await plan(request);
    expect(indexesUsed(nodes), describePlan(nodes)).toEqual(new Set(['releases_by_date']));
    expect(
      nodes.some((node) => node['Node Type'] === 'Sort'),
      describePlan(nodes),
    ).toBe(false);
    expectIndexedOnly(nodes, 0);
  });

  it.each([
    ['a voicebank', { vocaloid_banks: ['prima'], genres: [], languages: [] }],
    ['a genre', { vocaloid_banks: [], genres: ['rock'], languages: [] }],
    ['a language', { vocaloid_banks: [], genres: [], languages: ['ja'] }],
    ['two values of one filter', { vocaloid_banks: ['hatsune miku', 'gumi'], genres: [], languages: [] }],
    ['three filters', { vocaloid_banks: ['hatsune miku', 'gumi'], genres: ['rock'], languages: ['ja'] }],
  ])('a filter reads its own tag ranges, never the date index or a whole table (%s)', async (_name, filters) => {
    const values = Math.max(filters.vocaloid_banks.length, filters.genres.length, filters.languages.length);
    for (const after of [undefined, deep]) {
      const nodes = await plan({ filters, after });
      const used = indexesUsed(nodes);
      expect(used.has('release_tags_pk'), describePlan(nodes)).toBe(true);
      expect(used.has('releases_pkey'), describePlan(nodes)).toBe(true);
      expect(used.has('releases_by_date'), describePlan(nodes)).toBe(false);
      expectIndexedOnly(nodes, 21 * values);
    }
  });

  it('other filters are index probes on each candidate (release_tags_by_release)', async () => {
    const nodes = await plan({ filters: { vocaloid_banks: ['prima'], genres: ['rock'], languages: ['ja'] } });
    expect(indexesUsed(nodes).has('release_tags_by_release'), describePlan(nodes)).toBe(true);
  });

  describe('search (q)', () => {
    const searches = searchPlanCases;

    it.each(searches)('%s reads its own key ranges, never the date index or a whole table', async (_name, q) => {
      for (const sort of ['-release_date', 'release_date'] as const) {
        for (const after of [undefined, deep]) {
          const nodes = await plan({ search: parseSearch(q), sort, after });
          expect(indexesUsed(nodes).has('release_tags_pk'), describePlan(nodes)).toBe(true);
          expect(indexesUsed(nodes).has('releases_by_date'), describePlan(nodes)).toBe(false);
          expectIndexedOnly(nodes, 21 * 2);
        }
      }
    });

    it('relevance: the first tier is a range of the stored title index, the others key ranges', async () => {
      for (const [, q] of searches) {
        for (const after of [undefined, { ...deep, tier: 0 }]) {
          const nodes = await plan({ search: parseSearch(q), sort: 'relevance', tier: 0, after });
          expect(indexesUsed(nodes).has('releases_by_search_title'), describePlan(nodes)).toBe(true);
          // Few titles equal a search; the planner may fetch them by bitmap and sort those few.
          expectIndexedOnly(nodes, 21);
        }
        for (const tier of [1, 2, 3]) {
          for (const after of [undefined, { ...deep, tier }]) {
            const nodes = await plan({ search: parseSearch(q), sort: 'relevance', tier, after });
            expect(indexesUsed(nodes).has('release_tags_pk'), `tier ${tier}\n${describePlan(nodes)}`).toBe(true);
            expectIndexedOnly(nodes, 21 * 2);
          }
        }
      }
    });

    it('facets in context count over the matches, driven by a key range', async () => {
      const query = {
        filters: filterKeys({ vocaloid_banks: ['Hatsune Miku'], genres: ['rock'], languages: [] }),
        search: parseSearch('love'),
      };
      const matching = matchingReleases(query, stats, tagKinds.languages);
      if (typeof matching !== 'object') throw new Error('expected a query');
      for (const nodes of [
        await explain(facetCountsQuery(matching.select(), [tagKinds.vocaloid_banks, tagKinds.genres]).compile(db)),
        await explain(matchCountQuery(matching.select({ from: '2010-01-01', to: '2015-01-01' })).compile(db)),
      ]) {
        expect(indexesUsed(nodes).has('release_tags_pk'), describePlan(nodes)).toBe(true);
        for (const node of nodes) {
          if (node['Node Type'] === 'Seq Scan') {
            expect(node['Relation Name'], describePlan(nodes)).not.toMatch(/^(releases|release_tags)$/);
          }
        }
      }
    });
  });
});
