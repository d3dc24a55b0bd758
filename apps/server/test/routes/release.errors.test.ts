import { limits, ReleaseListResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';

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

  it.each([
    ['q=%zz', 'q'],
    ['genres=%', 'genres'],
    ['vocaloid_banks=Miku%2', 'vocaloid_banks'],
    ['q=ok&languages=%E3%81', undefined],
  ])('malformed percent-encoding, %s, is a 400 naming the parameter (issue 30)', async (query, parameter) => {
    const target = `/api/v1/release?${query}`;
    for (const path of [target, target.replace('/release?', '/facets?')]) {
      const answer = await server.get(path);
      if (parameter === undefined) {
        // Bytes that decode but are not UTF-8 are not malformed escapes: the written-text rule names them.
        const problem = await expectProblem(answer, 'invalid-request', 400);
        expect(problem.errors?.map((error) => error.parameter)).toEqual(['languages']);
        continue;
      }
      const problem = await expectProblem(answer, 'invalid-request', 400);
      expect(problem.errors).toEqual([{ parameter, detail: 'is not valid percent-encoding' }]);
      expect(problem.detail).toContain('%25');
    }
    // Express answers a HEAD of the same URL the same way.
    if (parameter !== undefined) expect((await server.get(target, { method: 'HEAD' })).status).toBe(400);
  });

  it('a well-formed %25 is a percent sign, searched for as text', async () => {
    expect((await server.get('/api/v1/release?q=100%25')).status).toBe(200);
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
});
