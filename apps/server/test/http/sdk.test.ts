import { createHash } from 'node:crypto';
import { AuthenticationError, BadRequestError, ConflictError, ReleasesClient } from '@releases/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectedIds,
  sampleReleases,
  startTestServer,
  testDatabases,
  testPassword,
  uniqueEmail,
  type TestServer,
} from '../support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the SDK against this server', () => {
  it('walks every page of a filtered list', async () => {
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    const ids: string[] = [];
    for await (const release of client.releases.list({ genres: ['rock', 'electropop'], limit: 9 }))
      ids.push(release.id);
    expect(ids).toEqual(expectedIds(await sampleReleases(), { genres: ['rock', 'electropop'] }));
  });

  it('turns problems into typed errors', async () => {
    const { key, id } = await server.createKey();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, apiKey: key });
    expect(await client.health.check()).toBe('OK');
    await server.services.keys.revoke(id);
    await expect(client.health.check()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(new ReleasesClient({ baseUrl: server.baseUrl }).releases.list({ limit: 500 })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});

/** The account journey of issue 7, through the SDK, on each backend (the raw-HTTP one is accounts.journey). */
describe.each(testDatabases())('the account journey through the SDK ($database)', ({ database, run }) => {
  let own: TestServer;
  beforeAll(async () => {
    if (run) own = await startTestServer({ database, releases: 'none', config: { keyCacheTtlMs: 1_000 } });
  });
  afterAll(() => own?.close());

  it.runIf(run)('sign up, log in, make a key, use it, list, revoke, log out', async () => {
    const client = new ReleasesClient({ baseUrl: own.baseUrl, maxRetries: 0 });
    const email = uniqueEmail();
    const signedUp = await client.auth.signup({ email, password: testPassword });
    await expect(client.auth.signup({ email, password: testPassword })).rejects.toBeInstanceOf(ConflictError);
    const { session } = await client.auth.login({ email, password: testPassword });
    const me = client.withSession(session.token);
    expect((await me.auth.session()).user).toEqual(signedUp.user);

    const created = await me.keys.create({ name: 'sdk', expires_in_days: 7 });
    const withKey = new ReleasesClient({ baseUrl: own.baseUrl, apiKey: created.key, maxRetries: 0 });
    expect(await withKey.health.check()).toBe('OK');
    expect((await me.keys.list()).keys.map((key) => key.id)).toEqual([created.id]);
    // The SDK sends each route only the credential it takes: a key-only client has no session for keys.list.
    await expect(withKey.keys.list()).rejects.toBeInstanceOf(AuthenticationError);

    await me.keys.revoke(created.id);
    await expect
      .poll(() => withKey.health.check().catch((error: unknown) => error), { timeout: 5_000, interval: 100 })
      .toBeInstanceOf(AuthenticationError);

    await me.auth.logout();
    await expect(me.auth.session()).rejects.toBeInstanceOf(AuthenticationError);
    // The row is gone, not just the cookie.
    expect((await own.rows('sessions')).map((row) => row.token_hash)).not.toContain(
      createHash('sha256').update(session.token).digest('hex'),
    );
  });
});
