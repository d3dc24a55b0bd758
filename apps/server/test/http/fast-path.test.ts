import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDatabases, type TestServer } from '../support/harness.js';

/**
 * The public reads are answered by the fast path (`http/fast-path.ts`) ahead of Express, and by Express for any
 * other spelling of their path (a trailing slash). Both must give the same answer to the same request: status,
 * headers (but those made per response) and body (but its time), for answers, problems and every caller.
 */
// Made per response, or framing: the compression middleware streams (chunked), the fast path knows the length.
const perResponse = new Set([
  'x-request-id',
  'ratelimit',
  'date',
  'keep-alive',
  'connection',
  'content-length',
  'transfer-encoding',
]);
const stableHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => !perResponse.has(name)).sort());
const withoutTime = (text: string) => text.replace(/"generated_at":"[^"]+"/, '"generated_at":"<time>"');
const instanceFree = (text: string) => text.replace(/"instance":"[^"]+"/, '"instance":"<id>"');

/** The same request through Express: `/api/v1/release?x` becomes `/api/v1/release/?x`, which only Express takes. */
function throughExpress(pathAndQuery: string): string {
  const query = pathAndQuery.indexOf('?');
  return query === -1 ? `${pathAndQuery}/` : `${pathAndQuery.slice(0, query)}/${pathAndQuery.slice(query)}`;
}

describe.each(testDatabases())('the fast path and Express ($database)', ({ database, run }) => {
  let server: TestServer;
  let key: string;
  let session: string;
  let cursor: string;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database });
    key = (await server.createKey()).key;
    session = (await server.signup()).token;
    const first = (await (await server.get('/api/v1/release?limit=2&genres=rock')).json()) as {
      data: { pagination: string };
    };
    cursor = first.data.pagination;
  });
  afterAll(() => server?.close());

  const urls = () => [
    '/api/v1/release?limit=3',
    '/api/v1/release?limit=2&genres=rock&sort=release_date',
    `/api/v1/release?limit=2&genres=rock&cursor=${cursor}`,
    '/api/v1/release?vocaloid_banks=Hatsune%20Miku,%20GUMI%20,&languages=ja',
    '/api/v1/release?limit=0',
    '/api/v1/release?cursor=nope',
    '/api/v1/release?languages=xx-bad!',
    '/api/v1/release?unknown=1',
    '/api/v1/release/rel_lcupwdzrpff2jlr4',
    '/api/v1/release/rel_doesnotexist',
    '/api/v1/release/not-an-id',
    '/api/v1/facets',
    '/api/v1/facets?x=1',
    '/api/v1/facets?q=miku&genres=rock',
    '/api/v1/facets?q=%00',
    '/api/v1/release?q=miku&limit=3',
    '/api/v1/release?q=%E5%88%9D%E9%9F%B3&sort=release_date',
    '/api/v1/release?sort=relevance',
  ];
  const callers = () => ({
    anonymous: {},
    'an API key': { 'x-api-key': key },
    'a session': { authorization: `Bearer ${session}` },
    'a bad key': { 'x-api-key': 'rls_nope' },
    'from another origin': { origin: 'https://example.org' },
    uncompressed: { 'accept-encoding': 'identity' },
    // No validators are sent, so nothing is ever "not modified": the same 200 from either path, kept or not.
    'If-None-Match: *': { 'if-none-match': '*' },
    'If-None-Match: an entity tag': { 'if-none-match': '"abc"' },
  });

  it.runIf(run)('answer If-None-Match with the whole answer, never a 304, as no validator is sent', async () => {
    for (let i = 0; i < 3; i++) {
      for (const path of ['/api/v1/release?limit=4', '/api/v1/facets', '/api/v1/openapi.json']) {
        const response = await server.get(path, { headers: { 'if-none-match': '*' } });
        expect(response.status, path).toBe(200);
        expect(response.headers.get('etag')).toBeNull();
        expect((await response.text()).length).toBeGreaterThan(0);
      }
    }
  });

  it.runIf(run)('give the same answers to the same requests, for every caller', async () => {
    for (const [caller, headers] of Object.entries(callers())) {
      for (const url of urls()) {
        // Three times each, so that kept answers are compared too.
        for (let i = 0; i < 3; i++) {
          const fast = await server.get(url, { headers });
          const slow = await server.get(throughExpress(url), { headers });
          const what = `${caller}: ${url} (${i + 1})`;
          expect(fast.status, what).toBe(slow.status);
          expect(stableHeaders(fast), what).toEqual(stableHeaders(slow));
          expect(instanceFree(withoutTime(await fast.text())), what).toBe(instanceFree(withoutTime(await slow.text())));
        }
      }
    }
  });
});
