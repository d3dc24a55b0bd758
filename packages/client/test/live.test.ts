import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  RateLimitError,
  ReleasesClient,
  ReleasesError,
  type Release,
} from '../src/index.js';
import { validateResponses } from '../src/validation.js';
import { startLiveServer, type LiveServer } from './server-harness.js';

let server: LiveServer;
let key: string;
let client: ReleasesClient;

beforeAll(async () => {
  server = await startLiveServer();
  key = (await server.createKey()).key;
  client = new ReleasesClient({ apiKey: key, baseUrl: server.baseUrl, validateResponses });
});
afterAll(() => server.stop());

/** The whole catalogue, read independently with raw fetch. */
async function everyReleaseRaw(query = ''): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  do {
    const body = (await (
      await fetch(`${server.baseUrl}/api/v1/release?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`)
    ).json()) as {
      data: { releases: Release[]; pagination: string };
    };
    ids.push(...body.data.releases.map((r) => r.id));
    cursor = encodeURIComponent(body.data.pagination);
  } while (cursor !== '');
  return ids;
}

describe('against the real server', () => {
  it('lists a page with its cursor and generation time', async () => {
    const page = await client.releases.list({ limit: 5 });
    expect(page.releases).toHaveLength(5);
    expect(page.hasNextPage()).toBe(true);
    expect(page.nextCursor).not.toBe('');
    expect(page.generatedAt).toMatch(/Z$/);
    const next = await page.getNextPage();
    expect(next.releases[0]!.id).not.toBe(page.releases[0]!.id);
  });

  it('iterates every page to the end and matches the full catalogue', async () => {
    const ids: string[] = [];
    for await (const release of client.releases.list({ limit: 17 })) ids.push(release.id);
    expect(ids).toEqual(await everyReleaseRaw());
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('iterates pages and collects with a bound', async () => {
    let pages = 0;
    for await (const page of client.releases.list({ limit: 50 }).pages()) {
      pages++;
      expect(page.releases.length).toBeLessThanOrEqual(50);
    }
    expect(pages).toBe(Math.ceil((await everyReleaseRaw()).length / 50));
    expect(await client.releases.list({ limit: 7 }).toArray({ max: 10 })).toHaveLength(10);
  });

  it('filters with wire names and arrays', async () => {
    const ids: string[] = [];
    for await (const release of client.releases.list({
      vocaloid_banks: ['Hatsune Miku', 'GUMI'],
      languages: ['ja'],
      sort: 'release_date',
    })) {
      ids.push(release.id);
      expect(release.languages).toContain('ja');
    }
    expect(ids).toEqual(await everyReleaseRaw('&vocaloid_banks=Hatsune%20Miku,GUMI&languages=ja&sort=release_date'));
    expect(ids.length).toBeGreaterThan(10);
  });

  it('rejects a filter value with a comma before sending anything', async () => {
    await expect(client.releases.list({ genres: ['rock,pop'] })).rejects.toThrow(/contains a comma/);
  });

  it('gets one release and the facets', async () => {
    const [first] = (await client.releases.list({ limit: 1 })).releases;
    const release = await client.releases.get(first!.id);
    expect(release).toEqual(first);
    const facets = await client.facets.list();
    expect(facets.vocaloid_banks.find((f) => f.value === 'Hatsune Miku')?.count).toBeGreaterThan(10);
  });

  it('checks health with a good key, and throws AuthenticationError for bad ones', async () => {
    expect(await client.health.check()).toBe('OK');
    const { id, key: revoked } = await server.createKey();
    await server.cli('keys', 'revoke', id);
    const error = await new ReleasesClient({ apiKey: revoked, baseUrl: server.baseUrl }).health
      .check()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    expect((error as AuthenticationError).problem?.detail).toBe('The API key has been revoked.');
    expect((error as AuthenticationError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect((error as Error).message).toContain((error as AuthenticationError).requestId!);
    await expect(new ReleasesClient({ baseUrl: server.baseUrl }).health.check()).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('leaves the key format to the server (SPEC §4): it only refuses what cannot be sent as a header', async () => {
    // Issue 8 #9 replaced the SDK's own format and checksum check: the server judges keys (local or Unkey).
    const malformed = new ReleasesClient({ apiKey: 'rls_short', baseUrl: server.baseUrl });
    await expect(malformed.health.check()).rejects.toBeInstanceOf(AuthenticationError);
    const mistyped = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    const checksum = await new ReleasesClient({ apiKey: mistyped, baseUrl: server.baseUrl }).health
      .check()
      .catch((e: unknown) => e);
    expect(checksum).toBeInstanceOf(AuthenticationError);
    expect(() => new ReleasesClient({ apiKey: '', baseUrl: server.baseUrl })).toThrow(/empty/);
    expect(() => new ReleasesClient({ apiKey: `${key}\n`, baseUrl: server.baseUrl })).toThrow(ReleasesError);
  });

  it('maps each problem to its error class', async () => {
    await expect(client.releases.get('rel_doesnotexist')).rejects.toBeInstanceOf(NotFoundError);
    const bad = await client.releases.list({ limit: 0 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect((bad as BadRequestError).errors).toEqual([
      { parameter: 'limit', detail: 'must be an integer from 1 to 100' },
    ]);
    await expect(client.releases.list({ cursor: 'tampered.cursor' })).rejects.toMatchObject({
      name: 'BadRequestError',
      problem: { title: 'Invalid cursor' },
    });
  });

  it('gives the raw response and request id with withResponse()', async () => {
    const { data, response, requestId } = await client.facets.list().withResponse();
    expect(response.status).toBe(200);
    expect(requestId).toBe(response.headers.get('x-request-id'));
    expect(data.genres.length).toBeGreaterThan(10);
    const page = await client.releases.list({ limit: 2 }).withResponse();
    expect(page.response.headers.get('link')).toContain('rel="next"');
  });

  it('reaches any endpoint through request()', async () => {
    const document = await client.request<{ openapi: string }>({ method: 'GET', path: '/api/v1/openapi.json' });
    expect(document.openapi).toMatch(/^3\./);
  });
});

describe('rate limits and outages from the real server', () => {
  it('throws RateLimitError with retryAfterMs once the quota is used (no retry beyond 60 s)', async () => {
    const limited = await startLiveServer({ RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW: '2m' });
    try {
      const anonymous = new ReleasesClient({ baseUrl: limited.baseUrl, maxRetries: 3 });
      await anonymous.facets.list();
      await anonymous.facets.list();
      const error = await anonymous.facets.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(60_000);
    } finally {
      await limited.stop();
    }
  });
});
