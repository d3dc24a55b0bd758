import { CreatedApiKeyResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, type SignedUp, type TestServer } from '../support/harness.js';
import { startUnkeyStandin, type UnkeyStandin } from '../support/unkey-standin.js';

/**
 * Deleting an account under `KEY_MANAGER=unkey` (SPEC §3.7): its keys are revoked at Unkey first, through the
 * local stand-in that speaks Unkey's v2 wire format (unkey-standin.ts); if Unkey cannot, nothing is deleted.
 */
describe.each(testDatabases())('deleting an account under KEY_MANAGER=unkey ($database)', ({ database, run }) => {
  let standin: UnkeyStandin;
  let server: TestServer;
  beforeAll(async () => {
    if (!run) return;
    standin = await startUnkeyStandin();
    server = await startTestServer({
      database,
      releases: 'none',
      config: {
        keyManager: 'unkey',
        keyCacheTtlMs: 0,
        unkey: { rootKey: standin.rootKey, apiId: standin.apiId, baseUrl: standin.url, timeoutMs: 1_000 },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await standin?.close();
  });

  const createKey = async (owner: SignedUp, name: string) => {
    const response = await server.send('POST', '/api/v1/keys', { name }, { session: owner.token });
    expect(response.status).toBe(201);
    return CreatedApiKeyResponseSchema.parse(await response.json()).data;
  };
  const health = (key: string) =>
    server.get('/api/v1/health', { headers: { 'x-api-key': key } }).then((response) => response.status);
  const deleteAccount = (owner: SignedUp) =>
    server.send('DELETE', '/api/v1/auth/account', { password: owner.password }, { session: owner.token });

  it.runIf(run)('deletes its keys at Unkey, then the account, its sessions and key rows', async () => {
    const owner = await server.signup();
    const kept = await createKey(owner, 'laptop');
    const revoked = await createKey(owner, 'old laptop');
    expect(
      (await server.send('DELETE', `/api/v1/keys/${revoked.id}`, undefined, { session: owner.token })).status,
    ).toBe(200);
    const deletesBefore = standin.count('keys.deleteKey');
    expect((await deleteAccount(owner)).status).toBe(204);
    // The active key was deleted at Unkey (the revoked one was already): one call, for the one still working.
    expect(standin.count('keys.deleteKey')).toBe(deletesBefore + 1);
    expect(standin.keys.get(kept.key)?.deleted).toBe(true);
    expect(standin.keys.get(revoked.key)?.deleted).toBe(true);
    expect(await health(kept.key)).toBe(401);
    expect((await server.rows('api_keys')).filter((row) => row.owner_id === owner.userId)).toEqual([]);
    expect((await server.rows('users')).filter((row) => row.id === owner.userId)).toEqual([]);
    expect(standin.violations).toEqual([]);
  });

  it.runIf(run)(
    'when Unkey cannot delete a key, it is a 503 and nothing is deleted; a retry then succeeds',
    async () => {
      const owner = await server.signup();
      const key = await createKey(owner, 'laptop');
      standin.misbehave('keys.deleteKey', { kind: 'status', status: 500 });
      try {
        const response = await deleteAccount(owner);
        await expectProblem(response, 'service-unavailable', 503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(response.headers.get('set-cookie')).toBeNull();
      } finally {
        standin.misbehave('keys.deleteKey', undefined);
      }
      // Everything is still there: the account signs in, the session works, the key works.
      expect(
        (await server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${owner.token}` } })).status,
      ).toBe(200);
      expect(await health(key.key)).toBe(200);
      expect(standin.keys.get(key.key)?.deleted).toBe(false);
      expect((await server.rows('users')).filter((row) => row.id === owner.userId)).toHaveLength(1);

      expect((await deleteAccount(owner)).status).toBe(204);
      expect(standin.keys.get(key.key)?.deleted).toBe(true);
      expect(await health(key.key)).toBe(401);
    },
  );
});
