import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticCatalogue } from '../src/catalogue/synthetic.js';
import type { ReleasePageRequest } from '../src/storage/interface.js';
import { buildReleasePageQuery, type TagStatistics } from '../src/storage/release-query.js';
import type { Database } from '../src/storage/schema.js';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let raw: BetterSqlite3.Database;
let db: Kysely<Database>;
let stats: TagStatistics;

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
  stats = byKind;
});
afterAll(async () => {
  raw.close();
  await server.close();
});

function plan(request: Partial<ReleasePageRequest>): string[] {
  const compiled = buildReleasePageQuery(
    {
      filters: { vocaloid_banks: [], genres: [], languages: [] },
      sort: '-release_date',
      limit: 20,
      after: undefined,
      ...request,
    },
    stats,
  ).compile(db);
  return (
    raw.prepare(`explain query plan ${compiled.sql}`).all(...(compiled.parameters as unknown[])) as Array<{
      detail: string;
    }>
  ).map((row) => row.detail);
}

/** No step reads a whole table, and no step sorts the (unbounded) matches of a filter. */
function expectIndexedOnly(steps: string[]): void {
  for (const step of steps) {
    expect(step, steps.join('\n')).not.toMatch(/^SCAN (releases|release_tags|r|t|o)\b(?!.*USING)/);
  }
}

describe('query plans (SQLite EXPLAIN QUERY PLAN)', () => {
  it('an unfiltered page walks the date index, with no sort step', () => {
    const steps = plan({ after: { releaseDate: '2015-01-01', id: 'rel_x' } });
    expect(steps.join('\n')).toMatch(/USING (COVERING )?INDEX releases_by_date/);
    expect(steps.join('\n')).not.toMatch(/TEMP B-TREE/);
    expectIndexedOnly(steps);
  });

  it('a selective filter reads only its own index range, not the date index', () => {
    const steps = plan({ filters: { vocaloid_banks: ['prima'], genres: [], languages: [] } });
    const text = steps.join('\n');
    expect(text).toMatch(/SEARCH t USING PRIMARY KEY \(kind=\? AND value_key=\?\)/);
    expect(text).not.toMatch(/releases_by_date/);
    expect(text).toMatch(/SEARCH r USING INDEX sqlite_autoindex_releases_1 \(id=\?\)/);
    expectIndexedOnly(steps);
  });

  it('a broad filter combined with another probes the second by index and stops at the page size', () => {
    const steps = plan({
      filters: { vocaloid_banks: ['hatsune miku', 'gumi'], genres: ['rock'], languages: ['ja'] },
      after: { releaseDate: '2020-06-01', id: 'rel_x' },
    });
    const text = steps.join('\n');
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
    const steps = plan({ filters: { vocaloid_banks: ['prima'], genres: ['rock'], languages: ['ja'] } });
    const compiled = buildReleasePageQuery(
      {
        filters: { vocaloid_banks: ['prima'], genres: ['rock'], languages: ['ja'] },
        sort: '-release_date',
        limit: 20,
        after: undefined,
      },
      stats,
    ).compile(db);
    // The bank (kind 1) is the driver: its value is bound first, in the primary-key range.
    expect(compiled.parameters.slice(0, 2)).toEqual([1, 'prima']);
    expectIndexedOnly(steps);
  });
});
