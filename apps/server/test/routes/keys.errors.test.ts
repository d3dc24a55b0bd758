import { ApiKeyListResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, type TestServer } from '../support/harness.js';

/** The active key limit on the account journey (auth.happy.test.ts): 25 per user, however fast they are asked for. */
describe.each(testDatabases())('the account journey ($database)', ({ database, run }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (run) server = await startTestServer({ database, releases: 'none', config: { keyCacheTtlMs: 1_000 } });
  });
  afterAll(() => server?.close());

  it.runIf(run)('holds at most 25 active keys per user, even when created at once', async () => {
    const { token } = await server.signup();
    const creations = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        server.send('POST', '/api/v1/keys', { name: `key ${i}` }, { session: token }),
      ),
    );
    const statuses = creations.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(25);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const refused = creations.find((r) => r.status === 409)!;
    expect((await expectProblem(refused, 'conflict', 409)).detail).toMatch(/already has 25 active API keys/);

    // Revoking one makes room for one.
    const listed = ApiKeyListResponseSchema.parse(
      await (await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${token}` } })).json(),
    ).data.keys;
    expect(listed).toHaveLength(25);
    await server.send('DELETE', `/api/v1/keys/${listed[0]!.id}`, undefined, { session: token });
    expect((await server.send('POST', '/api/v1/keys', { name: 'one more' }, { session: token })).status).toBe(201);
    expect((await server.send('POST', '/api/v1/keys', { name: 'too many' }, { session: token })).status).toBe(409);
  });
});
