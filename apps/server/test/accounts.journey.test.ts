import {
  ApiKeyListResponseSchema,
  ApiKeyResponseSchema,
  AuthResponseSchema,
  CreatedApiKeyResponseSchema,
  SessionInfoResponseSchema,
} from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectProblem,
  startTestServer,
  testPassword,
  testDatabases,
  uniqueEmail,
  type TestServer,
} from './harness.js';

/**
 * A user's whole journey through raw HTTP, as a curl user or a generated client makes it: sign up, sign in
 * (cookie and bearer), make a key, use it, list, revoke, see it refused, sign out, see the token refused.
 */
describe.each(testDatabases())('the account journey ($database)', ({ database, run }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (run) server = await startTestServer({ database, releases: 'none', config: { keyCacheTtlMs: 1_000 } });
  });
  afterAll(() => server?.close());

  it.runIf(run)('goes from sign-up to a working key and back out', async () => {
    const email = uniqueEmail();

    // Sign up: 201, the user, a session token, and the session cookie.
    const signup = await server.send('POST', '/api/v1/auth/signup', {
      email: `  ${email.toUpperCase()} `,
      password: testPassword,
    });
    expect(signup.status).toBe(201);
    expect(signup.headers.get('cache-control')).toBe('no-store');
    const signedUp = AuthResponseSchema.parse(await signup.json()).data;
    expect(signedUp.user.email).toBe(email); // trimmed and lower-cased
    expect(signedUp.user.id).toMatch(/^usr_/);
    const signupCookie = signup.headers.get('set-cookie') ?? '';
    expect(signupCookie).toMatch(new RegExp(`^releases_session=${signedUp.session.token};`));

    // Log in: a NEW session every time, as cookie and as token.
    const login = await server.send('POST', '/api/v1/auth/login', { email, password: testPassword });
    expect(login.status).toBe(200);
    const session = AuthResponseSchema.parse(await login.json()).data.session;
    expect(session.token).not.toBe(signedUp.session.token);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(cookie).toBe(`releases_session=${session.token}`);

    // The session, by bearer token and by cookie.
    for (const headers of [{ authorization: `Bearer ${session.token}` }, { cookie }]) {
      const current = await server.get('/api/v1/auth/session', { headers });
      expect(current.status).toBe(200);
      expect(current.headers.get('cache-control')).toBe('no-store');
      const info = SessionInfoResponseSchema.parse(await current.json()).data;
      expect(info.user).toEqual(signedUp.user);
      expect(info.session.expires_at).toBe(session.expires_at);
    }

    // Create a key (shown once), with the cookie from our own origin.
    const created = await server.send(
      'POST',
      '/api/v1/keys',
      { name: 'laptop', expires_in_days: 30 },
      { headers: { cookie, origin: server.baseUrl } },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const key = CreatedApiKeyResponseSchema.parse(await created.json()).data;
    expect(key).toMatchObject({ name: 'laptop', start: key.key.slice(0, 12), revoked_at: null, last_used_at: null });
    expect(key.key).toMatch(/^rls_[0-9A-Za-z]{38}$/);
    expect(Date.parse(key.expires_at!) - Date.parse(key.created_at)).toBe(30 * 86_400_000);

    // Use it.
    const health = await server.get('/api/v1/health', { headers: { 'x-api-key': key.key } });
    expect(await health.text()).toBe('"OK"');

    // List: newest first, never the key itself.
    const second = await server.send('POST', '/api/v1/keys', { name: 'ci' }, { session: session.token });
    const secondKey = CreatedApiKeyResponseSchema.parse(await second.json()).data;
    const listed = await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${session.token}` } });
    const keys = ApiKeyListResponseSchema.parse(await listed.json()).data.keys;
    expect(keys.map((k) => k.id)).toEqual([secondKey.id, key.id]);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    expect(keys[0]).not.toHaveProperty('key');

    // last_used_at is recorded (batched, at most once a minute).
    await expect
      .poll(async () => {
        const again = await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${session.token}` } });
        return ApiKeyListResponseSchema.parse(await again.json()).data.keys.find((k) => k.id === key.id)?.last_used_at;
      })
      .toEqual(expect.any(String));

    // Revoke it; revoking twice answers the same.
    const revoked = await server.send('DELETE', `/api/v1/keys/${key.id}`, undefined, { session: session.token });
    expect(revoked.status).toBe(200);
    const revokedKey = ApiKeyResponseSchema.parse(await revoked.json()).data;
    expect(revokedKey.revoked_at).toEqual(expect.any(String));
    const again = await server.send('DELETE', `/api/v1/keys/${key.id}`, undefined, { session: session.token });
    expect(ApiKeyResponseSchema.parse(await again.json()).data).toEqual(revokedKey);

    // Health is 401 within the revocation bound (SPEC §4: 5 s on every instance; at once on this one).
    await expect
      .poll(async () => (await server.get('/api/v1/health', { headers: { 'x-api-key': key.key } })).status, {
        timeout: 5_000,
      })
      .toBe(401);
    const refused = await server.get('/api/v1/health', { headers: { 'x-api-key': key.key } });
    expect((await expectProblem(refused, 'unauthorized', 401)).detail).toBe('The API key has been revoked.');

    // Log out: 204, cookie cleared, the row gone, the old token refused.
    const logout = await server.send('POST', '/api/v1/auth/logout', undefined, { session: session.token });
    expect(logout.status).toBe(204);
    expect(logout.headers.get('set-cookie')).toMatch(/^releases_session=; Max-Age=0; Path=\//);
    const afterLogout = await server.get('/api/v1/auth/session', {
      headers: { authorization: `Bearer ${session.token}` },
    });
    await expectProblem(afterLogout, 'unauthorized', 401);
    const byCookie = await server.get('/api/v1/keys', { headers: { cookie } });
    await expectProblem(byCookie, 'unauthorized', 401);
    // A cookie that no longer works is cleared, so the browser's next request is anonymous.
    expect(byCookie.headers.get('set-cookie')).toMatch(/^releases_session=; Max-Age=0/);
    const sessions = await server.rows('sessions');
    expect(sessions.map((row) => row.user_id)).toEqual([signedUp.user.id]); // only the signup session is left
    // The signup session still works: logging out ends one session, not all of them.
    expect(
      (await server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${signedUp.session.token}` } }))
        .status,
    ).toBe(200);
  });

  it.runIf(run)('refuses a second account for the same email, in any spelling', async () => {
    const email = uniqueEmail();
    await server.signup(email);
    const twice = await server.send('POST', '/api/v1/auth/signup', {
      email: ` ${email.toUpperCase()}`,
      password: testPassword,
    });
    const problem = await expectProblem(twice, 'conflict', 409);
    expect(problem.detail).toBe('An account with this email already exists. Sign in instead.');
  });

  it.runIf(run)('lets concurrent sign-ups with one email make exactly one account', async () => {
    const email = uniqueEmail();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => server.send('POST', '/api/v1/auth/signup', { email, password: testPassword })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expect((await server.rows('users')).filter((row) => row.email === email)).toHaveLength(1);
  });

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
