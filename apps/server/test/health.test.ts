import { apiKeyChecksum } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from './harness.js';

/** A clock tests can move forward. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none', clock, config: { keyCacheTtlMs: 0 } });
});
afterAll(() => server.close());

const health = (key?: string) =>
  server.get('/api/v1/health', key === undefined ? {} : { headers: { 'x-api-key': key } });

async function expectUnauthorized(response: Response, detail: string): Promise<void> {
  const problem = await expectProblem(response, 'unauthorized', 401);
  // Exactly the interface's Errors table, plus the instance every problem carries.
  expect(problem).toEqual({
    type: `${server.baseUrl}/problems/unauthorized`,
    title: 'Unauthorized',
    status: 401,
    detail,
    instance: `urn:uuid:${response.headers.get('x-request-id')}`,
  });
  expect(response.headers.get('www-authenticate')).toMatch(/^ApiKey realm="releases", header="x-api-key"/);
  expect(response.headers.get('cache-control')).toBe('no-store');
}

describe('GET /api/v1/health', () => {
  it('answers the JSON string "OK" for a valid key', async () => {
    const { key } = await server.createKey();
    const response = await health(key);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toBe('"OK"');
  });

  it('401 when the key is missing', async () => {
    await expectUnauthorized(await health(), 'This endpoint needs an API key: send it in the x-api-key header.');
  });

  it('401 when only a bearer token is sent: health takes API keys only', async () => {
    const response = await server.get('/api/v1/health', { headers: { authorization: `Bearer ${'a'.repeat(43)}` } });
    await expectUnauthorized(
      response,
      'This endpoint takes an API key in the x-api-key header; a session is not accepted here.',
    );
  });

  it.each([
    ['empty', ''],
    ['too short', 'rls_abc'],
    ['wrong prefix', `sk_${'a'.repeat(39)}`],
    ['bad characters', `rls_${'a'.repeat(31)}!${'a'.repeat(6)}`],
    ['surrounding junk', `Bearer rls_${'a'.repeat(38)}`],
  ])('401 when the key is malformed (%s)', async (_label, key) => {
    await expectUnauthorized(
      await health(key),
      'The API key is malformed: keys are 42 characters, start with rls_ and contain only letters and digits.',
    );
  });

  it('401 when the checksum does not match', async () => {
    const { key } = await server.createKey();
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    await expectUnauthorized(
      await health(typo),
      'The API key does not pass its checksum: it was mistyped or cut short.',
    );
  });

  it('401 when a well-formed key is unknown', async () => {
    const body = `rls_${'Z'.repeat(32)}`;
    await expectUnauthorized(await health(body + apiKeyChecksum(body)), 'The API key is not recognised.');
  });

  it('401 once the key is revoked', async () => {
    const { id, key } = await server.createKey();
    expect((await health(key)).status).toBe(200);
    expect((await server.services.keys.revoke(id))?.revokedAt).toEqual(expect.any(String));
    await expectUnauthorized(await health(key), 'The API key has been revoked.');
  });

  it('401 once the key has expired', async () => {
    const { id, key } = await server.createKey({ lifetimeMs: 60_000 });
    const expiresAt = (await server.services.storage.keys.findById(id))!.expiresAt!;
    expect(Date.parse(expiresAt) - clock.now()).toBeLessThanOrEqual(60_000);
    expect((await health(key)).status).toBe(200);
    clock.offset += 61_000;
    try {
      await expectUnauthorized(await health(key), `The API key expired at ${expiresAt}.`);
    } finally {
      clock.offset = 0;
    }
  });

  it('stores only a hash of the key, and records when it was last used', async () => {
    const { id, key } = await server.createKey();
    await health(key);
    const stored = (await server.services.storage.keys.list()).find((k) => k.id === id)!;
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.keyHash).not.toContain(key.slice(4));
    expect(stored.displayStart).toBe(key.slice(0, 12));
    await expect
      .poll(async () => (await server.services.storage.keys.list()).find((k) => k.id === id)?.lastUsedAt)
      .not.toBeNull();
  });
});

describe('credentials on the release endpoints', () => {
  it('an invalid key is a 401, never a silent downgrade to anonymous', async () => {
    const response = await server.get('/api/v1/release', { headers: { 'x-api-key': 'rls_invalid' } });
    await expectProblem(response, 'unauthorized', 401);
    expect(response.headers.get('www-authenticate')).toContain('Bearer realm="releases"');
  });

  it('a malformed Authorization header is a 401', async () => {
    const response = await server.get('/api/v1/release', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    const problem = await expectProblem(response, 'unauthorized', 401);
    expect(problem.detail).toBe('The Authorization header must be "Bearer <session token>".');
  });

  it('RELEASES_AUTH=required turns anonymous calls away and lets keys in', async () => {
    const strict = await startTestServer({ releases: 'none', config: { authMode: 'required' } });
    try {
      await expectProblem(await strict.get('/api/v1/release'), 'unauthorized', 401);
      await expectProblem(await strict.get('/api/v1/facets'), 'unauthorized', 401);
      const { key } = await strict.createKey();
      expect((await strict.get('/api/v1/release', { headers: { 'x-api-key': key } })).status).toBe(200);
      // Probes and docs stay open for orchestrators and readers.
      expect((await strict.get('/livez')).status).toBe(200);
      expect((await strict.get('/api/v1/openapi.json')).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
