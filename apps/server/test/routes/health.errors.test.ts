import { apiKeyChecksum } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';

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
});
