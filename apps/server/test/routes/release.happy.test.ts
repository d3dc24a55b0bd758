import {
  ReleaseListResponseSchema,
  ReleaseResponseSchema,
  FacetsResponseSchema,
  type ParsedReleaseInput,
} from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedIds, sampleReleases, startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
let releases: ParsedReleaseInput[];

beforeAll(async () => {
  releases = await sampleReleases();
  server = await startTestServer();
});
afterAll(() => server.close());

async function list(query: string) {
  const response = await server.get(`/api/v1/release${query}`);
  expect(response.status).toBe(200);
  return { response, body: ReleaseListResponseSchema.strict().parse(await response.json()) };
}

/** Walks every page with raw HTTP and returns the ids in the order served. */
async function walk(query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (let page = 0; page < 1000; page++) {
    const separator = query ? '&' : '?';
    const { body } = await list(
      `${query}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    ids.push(...body.data.releases.map((r) => r.id));
    cursor = body.data.pagination;
    if (cursor === '') return ids;
    expect(body.data.releases).toHaveLength(limit);
  }
  throw new Error('pagination did not end');
}

describe('GET /api/v1/release: the envelope', () => {
  it('has success, data.releases, data.pagination (string) and data.generated_at (ISO 8601 UTC, ms)', async () => {
    const { response, body } = await list('');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(body.success).toBe(true);
    expect(typeof body.data.pagination).toBe('string');
    expect(body.data.generated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.data.releases).toHaveLength(20);
  });

  it('returns every field of a release, always present, with the documented types', async () => {
    const { body } = await list('?limit=100');
    for (const release of body.data.releases) {
      expect(Object.keys(release)).toEqual([
        'id',
        'title',
        'artist',
        'release_date',
        'release_type',
        'vocaloid_banks',
        'genres',
        'languages',
        'track_count',
        'cover_url',
        'links',
        'created_at',
        'updated_at',
      ]);
      expect(release.id).toMatch(/^rel_/);
    }
    const byId = new Map(releases.map((r) => [r.id, r]));
    const first = body.data.releases[0]!;
    const source = byId.get(first.id)!;
    expect(first).toMatchObject({
      title: source.title,
      artist: source.artist,
      release_date: source.release_date,
      track_count: source.track_count,
    });
  });

  it('defaults to newest first, ties broken by id, and pages with Link rel="next"', async () => {
    const { response, body } = await list('?limit=5');
    expect(body.data.releases.map((r) => r.id)).toEqual(expectedIds(releases, {}).slice(0, 5));
    const link = response.headers.get('link');
    expect(link).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/api\/v1\/release\?limit=5&cursor=[^>]+>; rel="next"$/);
    const next = await server.get(link!.slice(link!.indexOf('/api/'), link!.indexOf('>')));
    const nextBody = ReleaseListResponseSchema.parse(await next.json());
    expect(nextBody.data.releases.map((r) => r.id)).toEqual(expectedIds(releases, {}).slice(5, 10));
  });

  it('sorts oldest first with sort=release_date', async () => {
    const { body } = await list('?sort=release_date&limit=10');
    expect(body.data.releases.map((r) => r.id)).toEqual(expectedIds(releases, {}, 'release_date').slice(0, 10));
  });
});

describe('GET /api/v1/release: filters', () => {
  const popularBank = () => mostCommon(releases.flatMap((r) => r.vocaloid_banks));
  const popularGenre = () => mostCommon(releases.flatMap((r) => r.genres));

  it('filters by one voice bank, genre or language', async () => {
    for (const [name, value] of [
      ['vocaloid_banks', popularBank()],
      ['genres', popularGenre()],
      ['languages', 'en'],
    ] as const) {
      const ids = await walk(`?${name}=${encodeURIComponent(value)}`, 100);
      expect(ids, `${name}=${value}`).toEqual(expectedIds(releases, { [name]: [value] }));
      expect(ids.length).toBeGreaterThan(0);
    }
  });

  it('ORs values within a filter and ANDs across filters', async () => {
    const banks = ['Hatsune Miku', 'GUMI'];
    const genres = [popularGenre(), 'rock'];
    const ids = await walk(
      `?vocaloid_banks=${encodeURIComponent(banks.join(','))}&genres=${encodeURIComponent(genres.join(','))}&languages=ja`,
      100,
    );
    const expected = expectedIds(releases, { vocaloid_banks: banks, genres, languages: ['ja'] });
    expect(ids).toEqual(expected);
    expect(expected.length).toBeGreaterThan(1);
    const orOnly = expectedIds(releases, { vocaloid_banks: banks });
    expect(orOnly.length).toBeGreaterThan(expectedIds(releases, { vocaloid_banks: ['GUMI'] }).length);
  });

  it('matches case-insensitively', async () => {
    const exact = await walk(`?vocaloid_banks=${encodeURIComponent('Hatsune Miku')}&languages=zh-Hans`, 100);
    const shouted = await walk(`?vocaloid_banks=${encodeURIComponent('HATSUNE MIKU')}&languages=ZH-HANS`, 100);
    expect(shouted).toEqual(exact);
    expect(exact).toEqual(expectedIds(releases, { vocaloid_banks: ['Hatsune Miku'], languages: ['zh-Hans'] }));
  });

  it('trims values, drops empty items, and unions repeated parameters', async () => {
    const expected = expectedIds(releases, { genres: ['rock', 'jazz'] });
    expect(await walk('?genres=%20rock%20,,jazz,', 100)).toEqual(expected);
    expect(await walk('?genres=rock&genres=jazz', 100)).toEqual(expected);
    expect(await walk('?genres=rock,rock,ROCK&genres=jazz', 100)).toEqual(expected);
  });

  it('treats a present but empty parameter as absent', async () => {
    const { body } = await list('?genres=&vocaloid_banks=%20,%20&limit=&sort=&cursor=');
    expect(body.data.releases.map((r) => r.id)).toEqual(expectedIds(releases, {}).slice(0, 20));
  });

  it('returns an empty page, not an error, for values nothing has', async () => {
    const { body, response } = await list('?vocaloid_banks=Nobody%20Sings%20This');
    expect(body.data.releases).toEqual([]);
    expect(body.data.pagination).toBe('');
    expect(response.headers.get('link')).toBeNull();
  });
});

describe('GET /api/v1/release: pagination', () => {
  it.each([
    ['', 7],
    ['?sort=release_date', 13],
    ['?genres=rock,electropop', 4],
    ['?vocaloid_banks=Hatsune%20Miku,Kagamine%20Rin&languages=ja', 3],
  ])('walks %s to the end with limit %i: no duplicate, no gap, same order as a full scan', async (query, limit) => {
    const ids = await walk(query, limit);
    expect(new Set(ids).size).toBe(ids.length);
    const params = new URLSearchParams(query);
    const split = (name: string) => params.get(name)?.split(',');
    const expected = expectedIds(
      releases,
      {
        vocaloid_banks: split('vocaloid_banks') ?? [],
        genres: split('genres') ?? [],
        languages: split('languages') ?? [],
      },
      (params.get('sort') as 'release_date' | null) ?? '-release_date',
    );
    expect(ids).toEqual(expected);
  });

  it('ends with an empty pagination string exactly on the last page', async () => {
    const total = releases.length;
    let cursor = '';
    let served = 0;
    for (;;) {
      const { body } = await list(`?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      served += body.data.releases.length;
      cursor = body.data.pagination;
      if (served < total) expect(cursor, `after ${served} of ${total}`).not.toBe('');
      else break;
    }
    expect(served).toBe(total);
    expect(cursor).toBe('');
  });

  it('does not shift pages when releases are inserted meanwhile', async () => {
    // Its own server: this test changes the catalogue.
    const own = await startTestServer();
    try {
      const firstPage = ReleaseListResponseSchema.parse(await (await own.get('/api/v1/release?limit=10')).json());
      const newest = { ...releases[0]!, id: 'rel_insertedmeanwhile', release_date: '2099-01-01' };
      await own.services.storage.catalogueWrites.upsertReleases([newest], new Date());
      const cursor = encodeURIComponent(firstPage.data.pagination);
      const second = ReleaseListResponseSchema.parse(
        await (await own.get(`/api/v1/release?limit=10&cursor=${cursor}`)).json(),
      );
      expect(second.data.releases.map((r) => r.id)).toEqual(expectedIds(releases, {}).slice(10, 20));
      const fresh = ReleaseListResponseSchema.parse(await (await own.get('/api/v1/release?limit=1')).json());
      expect(fresh.data.releases[0]?.id).toBe('rel_insertedmeanwhile');
    } finally {
      await own.close();
    }
  });
});

describe('GET /api/v1/release/{id} and /api/v1/facets', () => {
  it('gets one release by id', async () => {
    const target = releases[3]!;
    const response = await server.get(`/api/v1/release/${target.id}`);
    expect(response.status).toBe(200);
    const body = ReleaseResponseSchema.strict().parse(await response.json());
    expect(body.data).toMatchObject({ id: target.id, title: target.title, vocaloid_banks: target.vocaloid_banks });
  });

  it('lists facets with counts that match the catalogue', async () => {
    const response = await server.get('/api/v1/facets');
    const body = FacetsResponseSchema.parse(await response.json());
    const miku = body.data.vocaloid_banks.find((f) => f.value === 'Hatsune Miku');
    expect(miku?.count).toBe(expectedIds(releases, { vocaloid_banks: ['Hatsune Miku'] }).length);
    const genreTotal = new Set(releases.flatMap((r) => r.genres.map((g) => g.toLowerCase()))).size;
    expect(body.data.genres).toHaveLength(genreTotal);
    const counts = body.data.vocaloid_banks.map((f) => f.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });
});

function mostCommon(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}
