import { FacetsResponseSchema, ReleaseListResponseSchema, type ParsedReleaseInput } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.js';
import {
  expectedIds,
  expectProblem,
  sampleReleases,
  startTestServer,
  testDatabases,
  testPostgresUrl,
  type TestServer,
} from '../support/harness.js';

/** The same behaviour, through HTTP, on every storage backend. */
describe.each(testDatabases())('storage backend: $database', ({ database, run }) => {
  let server: TestServer;
  let releases: ParsedReleaseInput[];

  beforeAll(async () => {
    if (!run) return;
    releases = await sampleReleases();
    server = await startTestServer({ database });
  });
  afterAll(async () => {
    if (run) await server?.close();
  });

  async function walk(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '';
    do {
      const response = await server.get(
        `/api/v1/release?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(response.status).toBe(200);
      const body = ReleaseListResponseSchema.parse(await response.json());
      ids.push(...body.data.releases.map((r) => r.id));
      cursor = body.data.pagination;
    } while (cursor !== '');
    return ids;
  }

  it.skipIf(!run)('pages through every release in order, filtered and not', async () => {
    expect(await walk('', 9)).toEqual(expectedIds(releases, {}));
    expect(await walk('&sort=release_date', 11)).toEqual(expectedIds(releases, {}, 'release_date'));
    expect(await walk('&vocaloid_banks=hatsune%20miku,GUMI&languages=JA', 4)).toEqual(
      expectedIds(releases, { vocaloid_banks: ['Hatsune Miku', 'GUMI'], languages: ['ja'] }),
    );
    expect(await walk('&genres=rock&sort=release_date', 2)).toEqual(
      expectedIds(releases, { genres: ['rock'] }, 'release_date'),
    );
  });

  it.skipIf(!run)('counts facets', async () => {
    const body = FacetsResponseSchema.parse(await (await server.get('/api/v1/facets')).json());
    const total = body.data.languages.reduce((sum, f) => sum + f.count, 0);
    expect(total).toBe(releases.reduce((sum, r) => sum + new Set(r.languages.map((l) => l.toLowerCase())).size, 0));
  });

  it.skipIf(!run)('upserts in one transaction and bumps the catalogue version', async () => {
    const storage = server.services.storage;
    const before = await storage.catalogue.catalogueVersion();
    const changed = { ...releases[0]!, title: 'Changed title', genres: ['brand-new-genre'] };
    expect(await storage.catalogueWrites.upsertReleases([changed], new Date())).toEqual({ inserted: 0, updated: 1 });
    expect(await storage.catalogue.catalogueVersion()).toBe(before + 1);
    const facets = FacetsResponseSchema.parse(await (await server.get('/api/v1/facets')).json());
    expect(facets.data.genres).toContainEqual({ value: 'brand-new-genre', count: 1 });
    const found = await walk('&genres=brand-new-genre', 5);
    expect(found).toEqual([changed.id]);
    expect(await storage.catalogueWrites.upsertReleases([releases[0]!], new Date())).toEqual({
      inserted: 0,
      updated: 1,
    });
    const restored = FacetsResponseSchema.parse(await (await server.get('/api/v1/facets')).json());
    expect(restored.data.genres.find((g) => g.value === 'brand-new-genre')).toBeUndefined();
  });

  it.skipIf(!run)('checks API keys', async () => {
    const { id, key } = await server.createKey();
    expect((await server.get('/api/v1/health', { headers: { 'x-api-key': key } })).status).toBe(200);
    await server.services.keys.revoke(id);
    await expectProblem(await server.get('/api/v1/health', { headers: { 'x-api-key': key } }), 'unauthorized', 401);
  });
});

describe.skipIf(!testPostgresUrl)('PostgreSQL outage', () => {
  it('a database that does not answer is a StorageUnavailableError (503), not a crash', async () => {
    const storage = await openStorage('postgres://postgres@127.0.0.1:1/test', { timeoutMs: 500 });
    await expect(storage.ping()).rejects.toMatchObject({ name: 'StorageUnavailableError' });
    await storage.close();
  });
});
