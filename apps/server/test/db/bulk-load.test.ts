import type { ParsedReleaseInput } from '@releases/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticCatalogue } from '../../src/catalogue/synthetic.js';
import { startTestServer, testDatabases, type TestServer } from '../support/harness.js';

// More releases than one batch of either backend (PostgreSQL sends 5,000 rows per statement, SQLite 1,000).
const count = 7_000;
const now = new Date('2026-11-24T12:00:00Z');

/** `cli seed` and `cli import --replace`'s path: the whole catalogue in one transaction, with progress. */
describe.each(testDatabases())('bulk load: $database', ({ database, run }) => {
  let bulk: TestServer;
  let reference: TestServer;

  beforeAll(async () => {
    if (!run) return;
    bulk = await startTestServer({ database, releases: 'none' });
    // The same catalogue through the ordinary upsert, for comparison.
    reference = await startTestServer({ database, releases: [...syntheticCatalogue(count, 3)] });
  }, 120_000);
  afterAll(async () => {
    await bulk?.close();
    await reference?.close();
  });

  /** A bulk load's input that breaks off after 6,000 releases (more than one batch was written). */
  function* failing(): Generator<ParsedReleaseInput> {
    let i = 0;
    for (const release of syntheticCatalogue(count, 4)) {
      if (i++ === 6_000) throw new Error('the input broke off');
      yield release;
    }
  }

  /** PostgreSQL: the catalogue's indexes and constraints as the database describes them, schema names left out. */
  async function schemaShape(server: TestServer): Promise<string[]> {
    const client = new pg.Client({ connectionString: server.services.config.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ shape: string }>(`
        select indexname || ': ' || regexp_replace(indexdef, ' ON [a-z0-9_]+\\.', ' ON ') as shape
          from pg_indexes where schemaname = current_schema()
        union all
        select conname || ': ' || pg_get_constraintdef(oid) from pg_constraint
          where connamespace = current_schema()::regnamespace
        order by 1`);
      return rows.map((row) => row.shape);
    } finally {
      await client.end();
    }
  }

  async function walk(server: TestServer, query: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '';
    do {
      const response = await server.get(`/api/v1/release?limit=100${query}&cursor=${encodeURIComponent(cursor)}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { releases: Array<{ id: string }>; pagination: string } };
      ids.push(...body.data.releases.map((release) => release.id));
      cursor = body.data.pagination;
    } while (cursor !== '');
    return ids;
  }

  /** The facets, without the moment they were computed. */
  const facets = async (server: TestServer) => {
    const body = (await (await server.get('/api/v1/facets')).json()) as { data: Record<string, unknown> };
    delete body.data.generated_at;
    return body;
  };

  it.skipIf(!run)(
    'loads every release with progress, and serves what an upsert of the same releases serves',
    async () => {
      const progress: number[] = [];
      const loaded = await bulk.services.storage.catalogueWrites.loadReleases(
        syntheticCatalogue(count, 3),
        now,
        (done) => progress.push(done),
      );
      expect(loaded).toBe(count);
      expect(progress.at(-1)).toBe(count);
      expect(progress.length).toBeGreaterThan(1);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      expect(await facets(bulk)).toEqual(await facets(reference));
      for (const query of ['', '&genres=rock', '&vocaloid_banks=gumi&languages=ja', '&sort=release_date']) {
        const ids = await walk(bulk, query);
        expect(ids, query).toEqual(await walk(reference, query));
      }
      expect((await walk(bulk, '')).length).toBe(count);
    },
  );

  it.skipIf(!run)('writes nothing when the input fails part-way (one transaction)', async () => {
    const before = await facets(bulk);
    await expect(bulk.services.storage.catalogueWrites.loadReleases(failing(), now)).rejects.toThrow(
      'the input broke off',
    );
    expect(await facets(bulk)).toEqual(before);
    expect((await walk(bulk, '')).length).toBe(count);
  });

  it.skipIf(!run)('into an empty catalogue, a failed load leaves it empty, its indexes as they were', async () => {
    const empty = await startTestServer({ database, releases: 'none' });
    try {
      await expect(empty.services.storage.catalogueWrites.loadReleases(failing(), now)).rejects.toThrow(
        'the input broke off',
      );
      expect(await walk(empty, '')).toEqual([]);
      if (database === 'postgres') expect(await schemaShape(empty)).toEqual(await schemaShape(reference));
      // And it still loads.
      expect(await empty.services.storage.catalogueWrites.loadReleases(syntheticCatalogue(10, 5), now)).toBe(10);
      expect((await walk(empty, '&sort=release_date')).length).toBe(10);
    } finally {
      await empty.close();
    }
  });

  it.skipIf(!run)('replaces the releases it is given again, into a catalogue that is not empty', async () => {
    const changed = [...syntheticCatalogue(50, 3)].map((release) => ({ ...release, title: `Again ${release.id}` }));
    await bulk.services.storage.catalogueWrites.loadReleases(changed, now);
    const response = await bulk.get(`/api/v1/release/${changed[0]!.id}`);
    expect(((await response.json()) as { data: { title: string } }).data.title).toBe(`Again ${changed[0]!.id}`);
    expect((await walk(bulk, '')).length).toBe(count);
  });
});
