import { ReleaseListResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueReads, Storage } from '../../src/db/interface.js';
import { expectProblem, mistyped, sampleReleases, startTestServer, type TestServer } from '../support/harness.js';

/**
 * Repeated public reads are answered from memory ahead of the app (`http/answer-cache.ts`), from a URL's third
 * request on (the second one's answer is kept). A client must not be able to tell: the answer is the app's,
 * with only the per-response parts made anew, every request is admitted once by the same admission function
 * (quotas counted the same, a credential verified every time as the app does), and nothing that follows a
 * write is answered from an older catalogue.
 */
const storageReads = { pages: 0, releases: 0, facets: 0 };

function countingReads(storage: Storage): Storage {
  const catalogue: CatalogueReads = {
    ...storage.catalogue,
    listReleases: (request) => (storageReads.pages++, storage.catalogue.listReleases(request)),
    getReleaseJson: (id) => (storageReads.releases++, storage.catalogue.getReleaseJson(id)),
    facets: (query) => (storageReads.facets++, storage.catalogue.facets(query)),
    cacheStamp: () => storage.catalogue.cacheStamp(),
    countReleases: () => storage.catalogue.countReleases(),
    catalogueVersion: () => storage.catalogue.catalogueVersion(),
  };
  return new Proxy(storage, {
    get: (target, name): unknown => (name === 'catalogue' ? catalogue : Reflect.get(target, name)),
  });
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ wrapStorage: countingReads });
});
afterAll(() => server.close());

/** Headers that are made anew for every response; everything else must be the app's, byte for byte. */
const perResponse = new Set(['x-request-id', 'ratelimit', 'date', 'keep-alive', 'connection']);
const stableHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => !perResponse.has(name)).sort());
const withoutTime = (text: string) => text.replace(/"generated_at":"[^"]+"/, '"generated_at":"<time>"');

describe('repeated anonymous reads', () => {
  it.each([
    ['a page of releases', '/api/v1/release?genres=rock&limit=3', 'pages'],
    // Kept as UTF-8 bytes and sent as they are: the multi-byte text and its Content-Length must survive that.
    ['a page with Japanese titles', `/api/v1/release?q=${encodeURIComponent('ハッピー')}`, 'pages'],
    ['a release', '/api/v1/release/rel_lcupwdzrpff2jlr4', 'releases'],
    ['the facets', '/api/v1/facets', 'facets'],
  ] as const)('%s: the same answer as the app gave, without reading storage again', async (name, path, reads) => {
    const before = storageReads[reads];
    // Uncompressed, so that Content-Length is the length of the text read (http/compression.test.ts does the rest).
    const identity = { 'accept-encoding': 'identity' };
    const first = await server.get(path, { headers: identity });
    const firstBody = await first.text();
    if (name.includes('Japanese')) expect(firstBody).toContain('ハッピーシンセサイザ');
    // The second request is the app's too: an answer is kept only once its URL comes back.
    expect((await server.get(path, { headers: identity })).status).toBe(200);
    const third = await server.get(path, { headers: { ...identity, 'x-request-id': 'lb-0123456789abcdef' } });
    const thirdBody = await third.text();
    expect(third.status).toBe(200);
    expect(stableHeaders(third)).toEqual(stableHeaders(first));
    expect(withoutTime(thirdBody)).toBe(withoutTime(firstBody));
    expect(Number(third.headers.get('content-length'))).toBe(Buffer.byteLength(thirdBody));
    expect(third.headers.get('x-request-id')).toBe('lb-0123456789abcdef');
    expect(storageReads[reads]).toBe(before + 2);
    const time = /"generated_at":"([^"]+)"/.exec(thirdBody)?.[1];
    if (time !== undefined)
      expect(Date.parse(time)).toBeGreaterThanOrEqual(Date.parse(/"generated_at":"([^"]+)"/.exec(firstBody)![1]!));
  });

  it('keeps nothing for a URL asked for once: a walk through many pages reads each from storage', async () => {
    const before = storageReads.pages;
    for (let limit = 1; limit <= 10; limit++) await server.get(`/api/v1/release?limit=${limit}&genres=electropop`);
    for (let limit = 1; limit <= 10; limit++) await server.get(`/api/v1/release?limit=${limit}&genres=electropop`);
    // Twenty requests, all through the app: the first visit of each URL only marks it as seen.
    expect(storageReads.pages).toBe(before + 20);
    await server.get('/api/v1/release?limit=3&genres=electropop');
    expect(storageReads.pages).toBe(before + 20);
  });

  it('answers each Origin as CORS does, and other spellings of a URL through the app', async () => {
    const plain = await server.get('/api/v1/release?limit=2');
    const fromSite = await server.get('/api/v1/release?limit=2', { headers: { origin: 'https://example.org' } });
    const again = await server.get('/api/v1/release?limit=2', { headers: { origin: 'https://example.org' } });
    expect(stableHeaders(again)).toEqual(stableHeaders(fromSite));
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    expect(stableHeaders(plain)['access-control-allow-origin']).toBe('*');
    // A parameter the app refuses is refused every time: only 200s are ever answered again.
    for (let i = 0; i < 2; i++)
      await expectProblem(await server.get('/api/v1/release?limit=2&bogus=1'), 'invalid-request', 400);
  });

  it('answers a good API key from memory too, counted in its own quota, and refuses a bad or revoked one as the app does', async () => {
    const path = '/api/v1/release?limit=1&genres=pop';
    const { id, key } = await server.createKey();
    const before = storageReads.pages;
    const first = await server.get(path, { headers: { 'x-api-key': key } });
    await server.get(path, { headers: { 'x-api-key': key } });
    const second = await server.get(path, { headers: { 'x-api-key': key } });
    expect(storageReads.pages).toBe(before + 2);
    for (const response of [first, second]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toMatch(/^"api-key";/);
    }
    expect(stableHeaders(second)).toEqual(stableHeaders(first));
    await expectProblem(await server.get(path, { headers: { 'x-api-key': mistyped(key) } }), 'unauthorized', 401);
    await server.services.keys.revoke(id);
    await expectProblem(await server.get(path, { headers: { 'x-api-key': key } }), 'unauthorized', 401);
  });

  it("answers a session from memory too, with the session's own headers", async () => {
    const path = '/api/v1/release?limit=1&genres=rock';
    const anonymous = await server.get(path);
    const account = await server.signup();
    const before = storageReads.pages;
    const answers: Response[] = [];
    for (const headers of [{ authorization: `Bearer ${account.token}` }, { cookie: account.cookie }]) {
      for (let i = 0; i < 2; i++) answers.push(await server.get(path, { headers }));
    }
    // One read for the session's first answer; the three after it came from memory.
    expect(storageReads.pages).toBe(before + 1);
    for (const response of answers) {
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toMatch(/^"session";/);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(stableHeaders(response)).toEqual(stableHeaders(answers[0]!));
      expect(withoutTime(await response.text())).toBe(withoutTime(await anonymous.clone().text()));
    }
    // ...and what a session was given is never given to an anonymous caller.
    const anonymousAgain = await server.get(path);
    expect(anonymousAgain.headers.get('cache-control')).not.toBe('no-store');
    expect(anonymousAgain.headers.get('ratelimit-policy')).toMatch(/^"anonymous";/);

    // Signed out: refused at once, on the very URL that was answered from memory.
    expect((await server.send('POST', '/api/v1/auth/logout', undefined, { session: account.token })).status).toBe(204);
    await expectProblem(
      await server.get(path, { headers: { authorization: `Bearer ${account.token}` } }),
      'unauthorized',
      401,
    );
    const viaCookie = await server.get(path, { headers: { cookie: account.cookie } });
    await expectProblem(viaCookie, 'unauthorized', 401);
    expect(viaCookie.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    await expectProblem(await server.get(path, { headers: { authorization: 'Bearer nope' } }), 'unauthorized', 401);
  });

  it('answers from the catalogue as it is after a write', async () => {
    const path = '/api/v1/release?genres=zeuhl&limit=5';
    const ids = async () =>
      ReleaseListResponseSchema.parse(await (await server.get(path)).json()).data.releases.map((r) => r.id);
    expect(await ids()).toEqual([]);
    expect(await ids()).toEqual([]);
    const [template] = await sampleReleases();
    await server.services.storage.catalogueWrites.upsertReleases(
      [{ ...template!, id: 'rel_zeuhlnew', genres: ['zeuhl'] }],
      new Date(),
    );
    expect(await ids()).toEqual(['rel_zeuhlnew']);
  });

  it('HEAD goes through the app', async () => {
    await server.get('/api/v1/facets');
    const head = await server.get('/api/v1/facets', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('a session answered from memory', () => {
  const minute = 60_000;
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  let timed: TestServer;
  beforeAll(async () => {
    timed = await startTestServer({ clock });
  });
  afterAll(() => timed.close());

  it('slides its expiry as the app does, and a cookie due for renewal is renewed', async () => {
    const path = '/api/v1/release?limit=2';
    const account = await timed.signup();
    const lastSeen = async () =>
      (await timed.rows('sessions')).find((row) => row.user_id === account.userId)?.last_seen_at;
    const seenAtSignup = await lastSeen();
    for (let i = 0; i < 2; i++) {
      const response = await timed.get(path, { headers: { cookie: account.cookie } });
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    expect(await lastSeen()).toBe(seenAtSignup);

    clock.offset = 2 * minute;
    const renewed = await timed.get(path, { headers: { cookie: account.cookie } });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('set-cookie')).toMatch(/^releases_session=[^;]+; Max-Age=(\d+);/);
    expect(Number(/Max-Age=(\d+)/.exec(renewed.headers.get('set-cookie')!)![1])).toBeGreaterThan(6 * 24 * 3600);
    const seenOnce = await lastSeen();
    expect(seenOnce).not.toBe(seenAtSignup);
    const next = await timed.get(path, { headers: { cookie: account.cookie } });
    expect(next.headers.get('set-cookie')).toBeNull();

    // A bearer token has no cookie to renew: its row slides, and the answer still comes from memory.
    clock.offset = 4 * minute;
    const bearer = await timed.get(path, { headers: { authorization: `Bearer ${account.token}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('set-cookie')).toBeNull();
    expect(await lastSeen()).not.toBe(seenOnce);
  });
});

describe('quotas of answers from memory', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({
      config: { rateLimits: { windowMs: 60_000, anonymous: 3, apiKey: 100, session: 100, auth: 100 } },
    });
  });
  afterAll(() => limited.close());

  it('counts each request once, in the same quota as the app, and refuses the one over it as the app does', async () => {
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const response = await limited.get('/api/v1/release?limit=1');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toMatch(/^"anonymous"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
      remaining.push(/r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1] ?? null);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await limited.get('/api/v1/release?limit=1');
    await expectProblem(refused, 'rate-limited', 429);
    expect(refused.headers.get('ratelimit')).toMatch(/^"anonymous"; r=0; t=\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another URL from the same address shares the quota.
    await expectProblem(await limited.get('/api/v1/facets'), 'rate-limited', 429);
  });
});

describe('the client address of answers from memory', () => {
  it.each([
    ['behind one trusted proxy, each forwarded client has its own quota', 1, ['200', '200', '429', '200']],
    ['with no trusted proxy, X-Forwarded-For is ignored', false, ['200', '200', '429', '429']],
  ] as const)('%s', async (_, trustProxy, expected) => {
    const proxied = await startTestServer({
      config: { trustProxy, rateLimits: { windowMs: 60_000, anonymous: 2, apiKey: 100, session: 100, auth: 100 } },
    });
    try {
      const from = (client: string) =>
        proxied
          .get('/api/v1/release?limit=1', { headers: { 'x-forwarded-for': client } })
          .then((r) => String(r.status));
      const statuses = [await from('203.0.113.1'), await from('203.0.113.1'), await from('203.0.113.1')];
      statuses.push(await from('203.0.113.2'));
      expect(statuses).toEqual(expected);
    } finally {
      await proxied.close();
    }
  });
});

describe('RELEASES_AUTH=required', () => {
  it('an answer kept for an API key is never given to an anonymous caller', async () => {
    const closed = await startTestServer({ config: { authMode: 'required' } });
    try {
      const { key } = await closed.createKey();
      for (let i = 0; i < 2; i++) {
        expect((await closed.get('/api/v1/facets', { headers: { 'x-api-key': key } })).status).toBe(200);
      }
      await expectProblem(await closed.get('/api/v1/facets'), 'unauthorized', 401);
    } finally {
      await closed.close();
    }
  });
});
