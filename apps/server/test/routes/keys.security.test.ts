import { ApiKeyListResponseSchema, CreatedApiKeyResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, type SignedUp, type TestServer } from '../support/harness.js';
import { describeAuthMatrix } from '../support/auth-matrix.js';

describe.each(testDatabases())('who may do what ($database)', ({ database, run }) => {
  let server: TestServer;
  let alice: SignedUp;
  let bob: SignedUp;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database, releases: 'none' });
    [alice, bob] = await Promise.all([server.signup(), server.signup()]);
  });
  afterAll(() => server?.close());

  const listKeys = async (who: SignedUp) =>
    ApiKeyListResponseSchema.parse(
      await (await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${who.token}` } })).json(),
    ).data.keys;

  it.runIf(run)("one user can neither see nor revoke another's keys", async () => {
    const created = await server.send('POST', '/api/v1/keys', { name: "alice's" }, { session: alice.token });
    const key = CreatedApiKeyResponseSchema.parse(await created.json()).data;
    expect(await listKeys(bob)).toEqual([]);
    expect((await listKeys(alice)).map((k) => k.id)).toEqual([key.id]);
    const steal = await server.send('DELETE', `/api/v1/keys/${key.id}`, undefined, { session: bob.token });
    const problem = await expectProblem(steal, 'not-found', 404);
    // The same answer as for a key that does not exist at all.
    const none = await server.send('DELETE', '/api/v1/keys/key_doesnotexist', undefined, { session: bob.token });
    expect((await expectProblem(none, 'not-found', 404)).detail).toBe(
      problem.detail.replace(key.id, 'key_doesnotexist'),
    );
    expect((await server.get('/api/v1/health', { headers: { 'x-api-key': key.key } })).status).toBe(200);
  });

  it.runIf(run)("an API key can never manage keys (403), even its own owner's", async () => {
    const created = await server.send('POST', '/api/v1/keys', { name: 'mine' }, { session: alice.token });
    const { key } = CreatedApiKeyResponseSchema.parse(await created.json()).data;
    for (const [method, path] of [
      ['GET', '/api/v1/keys'],
      ['POST', '/api/v1/keys'],
      ['DELETE', '/api/v1/keys/key_whatever'],
      ['GET', '/api/v1/auth/session'],
      ['POST', '/api/v1/auth/logout'],
      ['GET', '/api/v1/auth/sessions'],
      ['DELETE', '/api/v1/auth/sessions'],
      ['DELETE', '/api/v1/auth/sessions/ses_whatever'],
      ['POST', '/api/v1/auth/password'],
      ['DELETE', '/api/v1/auth/account'],
    ] as const) {
      const response = await server.send(
        method,
        path,
        method === 'POST' && path.endsWith('keys')
          ? { name: 'x' }
          : path.endsWith('password')
            ? { current_password: alice.password, new_password: 'a brand new pass phrase' }
            : path.endsWith('account')
              ? { password: alice.password }
              : undefined,
        {
          headers: { 'x-api-key': key },
        },
      );
      const problem = await expectProblem(response, 'forbidden', 403);
      expect(problem.detail).toBe('API keys cannot manage accounts or keys: sign in and use the session instead.');
    }
  });

  it.runIf(run)('session routes without a credential are 401 with a Bearer challenge', async () => {
    const response = await server.get('/api/v1/keys');
    expect((await expectProblem(response, 'unauthorized', 401)).detail).toMatch(/needs a session/);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="releases"');
  });

  it.runIf(run)('closes the session routes to other origins (CORS)', async () => {
    const preflight = await server.get('/api/v1/keys', {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const read = await server.get('/api/v1/keys', {
      headers: { origin: 'https://elsewhere.example', cookie: alice.cookie },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    expect(read.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describeAuthMatrix('keys');
