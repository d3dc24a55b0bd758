import { ReleaseListResponseSchema, type ParsedReleaseInput } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleReleases, startTestServer, type TestServer } from '../support/harness.js';

/**
 * Language tags are stored canonically (`iw` is kept as `he`, `zh-hans` as `zh-Hans`); a filter must mean
 * the same language whichever of its spellings it is written in (Intl.getCanonicalLocales).
 */
let server: TestServer;
let releases: ParsedReleaseInput[];
const hebrew = ['rel_alias_he_1', 'rel_alias_he_2', 'rel_alias_he_3'];

beforeAll(async () => {
  const base = (await sampleReleases()).slice(0, 6);
  releases = base.map((release, index) => ({
    ...release,
    id: hebrew[index] ?? `rel_alias_other_${index}`,
    release_date: `2020-01-0${index + 1}`,
    // Stored under three spellings of the same languages; storage canonicalises them.
    languages: [['iw'], ['he'], ['HE', 'ja'], ['in'], ['zh-hans'], ['ja']][index]!,
  }));
  server = await startTestServer({ releases });
});
afterAll(() => server.close());

async function walk(query: string): Promise<string[]> {
  const ids: string[] = [];
  let url = `/api/v1/release?limit=1&${query}`;
  for (;;) {
    const response = await server.get(url);
    expect(response.status, url).toBe(200);
    const body = ReleaseListResponseSchema.parse(await response.json());
    ids.push(...body.data.releases.map((release) => release.id));
    const link = response.headers.get('link');
    if (body.data.pagination === '') {
      expect(link).toBeNull();
      return ids;
    }
    // The Link header and the cursor lead to the same next page.
    const next = /^<([^>]+)>; rel="next"$/.exec(link ?? '')?.[1];
    expect(next, 'Link header').toBeDefined();
    expect(new URL(next!).searchParams.get('cursor')).toBe(body.data.pagination);
    url = `${new URL(next!).pathname}${new URL(next!).search}`;
  }
}

describe('language filters match every spelling of a tag', () => {
  it.each([['languages=iw'], ['languages=he'], ['languages=HE'], ['languages=IW'], ['languages=iw,he']])(
    '%s finds the Hebrew releases, page by page',
    async (query) => {
      expect(await walk(query)).toEqual([...hebrew].reverse());
    },
  );

  it('in finds Indonesian and zh-hans finds Simplified Chinese', async () => {
    expect(await walk('languages=in')).toEqual(['rel_alias_other_3']);
    expect(await walk('languages=id')).toEqual(['rel_alias_other_3']);
    expect(await walk('languages=ZH-HANS')).toEqual(['rel_alias_other_4']);
  });

  it('a cursor made with one spelling is good with another', async () => {
    const first = ReleaseListResponseSchema.parse(
      await (await server.get('/api/v1/release?limit=1&languages=iw')).json(),
    );
    const cursor = encodeURIComponent(first.data.pagination);
    const second = await server.get(`/api/v1/release?limit=1&languages=he&cursor=${cursor}`);
    expect(second.status).toBe(200);
    const body = ReleaseListResponseSchema.parse(await second.json());
    expect(body.data.releases.map((release) => release.id)).toEqual([hebrew[1]]);
  });

  it('facets list the canonical spelling once', async () => {
    const facets = (await (await server.get('/api/v1/facets')).json()) as {
      data: { languages: Array<{ value: string; count: number }> };
    };
    expect(facets.data.languages).toContainEqual({ value: 'he', count: 3 });
    expect(facets.data.languages.map((facet) => facet.value.toLowerCase())).not.toContain('iw');
  });
});
