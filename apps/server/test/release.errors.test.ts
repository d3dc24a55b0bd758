import { limits, ReleaseListResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function firstCursor(query = ''): Promise<string> {
  const body = ReleaseListResponseSchema.parse(await (await server.get(`/api/v1/release?limit=2${query}`)).json());
  expect(body.data.pagination).not.toBe('');
  return body.data.pagination;
}

describe('GET /api/v1/release: invalid parameters are 400 invalid-request naming the parameter', () => {
  it.each([
    ['limit=0', 'limit', 'must be an integer from 1 to 100'],
    [`limit=${limits.maxPageSize + 1}`, 'limit', 'must be an integer from 1 to 100'],
    ['limit=abc', 'limit', 'must be an integer from 1 to 100'],
    ['limit=1.5', 'limit', 'must be an integer from 1 to 100'],
    ['limit=-3', 'limit', 'must be an integer from 1 to 100'],
    ['limit=5&limit=6', 'limit', 'may be given only once'],
    ['sort=title', 'sort', 'must be one of -release_date, release_date, relevance'],
    ['languages=ja,not_a_tag!', 'languages', '"not_a_tag!" is not a BCP 47 language tag'],
    [`genres=${'x'.repeat(65)}`, 'genres', 'values are at most 64 characters; one has 65'],
    [`genres=${Array.from({ length: 21 }, (_, i) => `g${i}`).join(',')}`, 'genres', 'takes at most 20 values; got 21'],
    ['page=2', 'page', 'is not a known parameter'],
    ['offset=20', 'offset', 'is not a known parameter'],
  ])('%s', async (query, parameter, detail) => {
    const problem = await expectProblem(await server.get(`/api/v1/release?${query}`), 'invalid-request', 400);
    expect(problem.title).toBe('Invalid request');
    expect(problem.errors).toContainEqual({ parameter, detail });
    expect(problem.detail).toContain(parameter);
  });

  it('reports every bad parameter at once', async () => {
    const problem = await expectProblem(
      await server.get('/api/v1/release?limit=0&sort=x&foo=1'),
      'invalid-request',
      400,
    );
    expect(problem.errors?.map((e) => e.parameter).sort()).toEqual(['foo', 'limit', 'sort']);
  });
});

describe('GET /api/v1/release/{id} and /api/v1/facets refuse unknown parameters as the list does (SPEC §3.6)', () => {
  it.each([
    ['/api/v1/release/rel_lcupwdzrpff2jlr4?x=', 'x'],
    ['/api/v1/release/rel_lcupwdzrpff2jlr4?utm_source=feed&limit=2', 'utm_source'],
    ['/api/v1/facets?x=1', 'x'],
    ['/api/v1/facets?cache_buster=12345', 'cache_buster'],
  ])('%s', async (path, parameter) => {
    // Twice: the second request of a URL is the one whose answer would be kept, were it a 200.
    for (let i = 0; i < 2; i++) {
      const problem = await expectProblem(await server.get(path), 'invalid-request', 400);
      expect(problem.errors).toContainEqual({ parameter, detail: 'is not a known parameter' });
    }
  });
});

describe('cursors', () => {
  it('rejects a tampered cursor', async () => {
    const cursor = await firstCursor();
    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    decoded[3] = 'rel_0000000000000000';
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    const problem = await expectProblem(
      await server.get(`/api/v1/release?limit=2&cursor=${forged}`),
      'invalid-cursor',
      400,
    );
    expect(problem.title).toBe('Invalid cursor');
    expect(problem.detail).toMatch(/altered/);
    const flipped = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'B' : 'A') + cursor.slice(-1);
    await expectProblem(await server.get(`/api/v1/release?cursor=${flipped}&limit=2`), 'invalid-cursor', 400);
  });

  it('rejects a cursor used with other filters or another sort', async () => {
    const cursor = await firstCursor('&genres=rock');
    const other = await expectProblem(
      await server.get(`/api/v1/release?limit=2&genres=jazz&cursor=${cursor}`),
      'invalid-cursor',
      400,
    );
    expect(other.detail).toMatch(/different query/);
    await expectProblem(await server.get(`/api/v1/release?limit=2&cursor=${cursor}`), 'invalid-cursor', 400);
    await expectProblem(
      await server.get(`/api/v1/release?limit=2&genres=rock&sort=release_date&cursor=${cursor}`),
      'invalid-cursor',
      400,
    );
    // Same filters in another spelling and order are the same query.
    const same = await server.get(`/api/v1/release?limit=2&genres=ROCK,&cursor=${cursor}`);
    expect(same.status).toBe(200);
  });

  it.each(['garbage', 'a.b', '....', '%00', 'x'.repeat(5000), 'W10.AAAA', '🎵.🎵'])(
    'rejects a malformed cursor %#',
    async (cursor) => {
      const problem = await expectProblem(
        await server.get(`/api/v1/release?cursor=${encodeURIComponent(cursor)}`),
        'invalid-cursor',
        400,
      );
      expect(problem.errors).toEqual([{ parameter: 'cursor', detail: problem.detail }]);
    },
  );
});

describe('errors outside the list', () => {
  it('404 for an unknown release id, 400 for a malformed one', async () => {
    const missing = await expectProblem(await server.get('/api/v1/release/rel_doesnotexist'), 'not-found', 404);
    expect(missing.detail).toBe('There is no release with the id rel_doesnotexist.');
    const malformed = await expectProblem(await server.get('/api/v1/release/12345'), 'invalid-request', 400);
    expect(malformed.errors).toEqual([{ parameter: 'id', detail: 'is not a release id (they look like rel_...)' }]);
  });

  it('404 problem for unknown routes, in and out of /api/v1', async () => {
    for (const path of ['/api/v1/nope', '/api/v2/release', '/nothing/here', '/api/v1/release/rel_x/extra']) {
      const problem = await expectProblem(await server.get(path), 'not-found', 404);
      expect(problem.title).toBe('Not found');
    }
  });

  it('405 with Allow for a wrong method', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await server.get('/api/v1/release', { method });
      await expectProblem(response, 'method-not-allowed', 405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
    const health = await server.get('/api/v1/health', { method: 'DELETE' });
    await expectProblem(health, 'method-not-allowed', 405);
  });

  it('413 for a body over 16 KB', async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(limits.maxJsonBodyBytes + 10) });
    const response = await server.get('/api/v1/auth/login', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    const problem = await expectProblem(response, 'payload-too-large', 413);
    expect(problem.title).toBe('Payload too large');
  });

  it('415 for a body that is not JSON', async () => {
    const response = await server.get('/api/v1/auth/login', {
      method: 'POST',
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await expectProblem(response, 'unsupported-media-type', 415);
  });

  it('400 for malformed JSON', async () => {
    const response = await server.get('/api/v1/auth/login', {
      method: 'POST',
      body: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    const problem = await expectProblem(response, 'invalid-request', 400);
    expect(problem.detail).toBe('The request body is not valid JSON.');
  });

  it('answers HEAD like GET, without a body', async () => {
    const head = await server.get('/api/v1/release', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('400 for a path that is not valid percent-encoding', async () => {
    const problem = await expectProblem(await server.get('/api/v1/release/%zz'), 'invalid-request', 400);
    expect(problem.detail).toBe('The URL is not valid percent-encoding.');
  });

  it('431 problem, not a bare status line, for headers over 16 KB', async () => {
    const response = await server.get(`/api/v1/release?genres=${'a'.repeat(20_000)}`);
    const problem = await expectProblem(response, 'headers-too-large', 431);
    expect(problem.detail).toMatch(/larger than this server accepts/);
  });
});

describe('failures inside the server', () => {
  it('500 with no internals when a route throws', async () => {
    const broken = await startTestServer({
      releases: 'none',
      wrapStorage: (storage) =>
        Object.assign(Object.create(storage) as typeof storage, {
          catalogue: Object.assign(Object.create(storage.catalogue) as typeof storage.catalogue, {
            getReleaseJson: async () => {
              throw new Error('SELECT secret_column FROM internals failed at /srv/app/db.ts:42');
            },
          }),
        }),
    });
    try {
      const response = await broken.get('/api/v1/release/rel_anything');
      const problem = await expectProblem(response, 'internal-error', 500);
      const text = JSON.stringify(problem);
      expect(text).not.toMatch(/secret_column|db\.ts|at \//);
      expect(problem.detail).toBe('The server failed to handle this request.');
    } finally {
      await broken.close();
    }
  });

  it('503 with Retry-After when the database does not answer', async () => {
    const own = await startTestServer({ releases: 'none' });
    const key = await own.createKey();
    try {
      await own.services.storage.close();
      for (const path of ['/api/v1/release', '/api/v1/facets', '/api/v1/release/rel_x']) {
        const response = await own.get(path);
        await expectProblem(response, 'service-unavailable', 503);
        expect(response.headers.get('retry-after')).toBe('5');
      }
      const health = await own.get('/api/v1/health', { headers: { 'x-api-key': key.key } });
      // The key was verified before (cache) or the key lookup itself fails: either way a 503, never a 200 or 500.
      await expectProblem(health, 'service-unavailable', 503);
      const ready = await own.get('/readyz');
      await expectProblem(ready, 'service-unavailable', 503);
      expect((await own.get('/livez')).status).toBe(200);
    } finally {
      await own.close().catch(() => undefined);
    }
  });
});

describe('rate limits', () => {
  it('429 with Retry-After and draft-8 headers once the anonymous quota is used', async () => {
    const own = await startTestServer({
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 3, apiKey: 5, session: 5, auth: 5 } },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const ok = await own.get('/api/v1/release');
        expect(ok.status).toBe(200);
        expect(ok.headers.get('ratelimit-policy')).toMatch(/^"anonymous"; q=3; w=60/);
        expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^"anonymous"; r=${2 - i}; t=\\d+`));
      }
      const limited = await own.get('/api/v1/release');
      const problem = await expectProblem(limited, 'rate-limited', 429);
      expect(problem.title).toBe('Too many requests');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // An API key has its own, larger quota.
      const key = await own.createKey();
      const withKey = await own.get('/api/v1/release', { headers: { 'x-api-key': key.key } });
      expect(withKey.status).toBe(200);
      expect(withKey.headers.get('ratelimit-policy')).toMatch(/^"api-key"; q=5/);
    } finally {
      await own.close();
    }
  });

  it('counts failed credentials against the caller IP', async () => {
    const own = await startTestServer({
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 2, apiKey: 100, session: 100, auth: 100 } },
    });
    try {
      const bad = { headers: { 'x-api-key': 'rls_nope' } };
      expect((await own.get('/api/v1/health', bad)).status).toBe(401);
      expect((await own.get('/api/v1/health', bad)).status).toBe(401);
      await expectProblem(await own.get('/api/v1/health', bad), 'rate-limited', 429);
    } finally {
      await own.close();
    }
  });
  it('never limits the probes, which orchestrators poll', async () => {
    const own = await startTestServer({
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 2, apiKey: 100, session: 100, auth: 100 } },
    });
    try {
      for (let i = 0; i < 5; i++) {
        for (const probe of ['/livez', '/readyz']) {
          const response = await own.get(probe);
          expect(response.status).toBe(200);
          expect(response.headers.get('ratelimit')).toBeNull();
        }
      }
      // Everything else from that address is still counted.
      await own.get('/api/v1/release');
      await own.get('/api/v1/release');
      await expectProblem(await own.get('/api/v1/release'), 'rate-limited', 429);
    } finally {
      await own.close();
    }
  });
});
