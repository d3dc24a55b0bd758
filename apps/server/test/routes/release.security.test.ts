import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, type SignedUp, type TestServer } from '../support/harness.js';
import { describeAuthMatrix } from '../support/auth-matrix.js';

describe('credentials on the release endpoints', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ releases: 'none' });
  });
  afterAll(() => server.close());

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

describe.each(testDatabases())('who may do what ($database)', ({ database, run }) => {
  let server: TestServer;
  let alice: SignedUp;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database, releases: 'none' });
    alice = await server.signup();
  });
  afterAll(() => server?.close());

  it.runIf(run)('the release endpoints accept a session too', async () => {
    for (const headers of [{ authorization: `Bearer ${alice.token}` }, { cookie: alice.cookie }]) {
      const response = await server.get('/api/v1/release', { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });
});

describeAuthMatrix('release');
