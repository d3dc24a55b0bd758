import { createHash } from 'node:crypto';
import {
  ApiKeyListResponseSchema,
  ApiKeyResponseSchema,
  AuthResponseSchema,
  CreatedApiKeyResponseSchema,
  limits,
  PasswordResetRequestedResponseSchema,
  SessionInfoResponseSchema,
} from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock, lifecycleHelpers, startLifecycleServer } from '../support/account-lifecycle.js';
import {
  expectProblem,
  startTestServer,
  testPassword,
  testDatabases,
  uniqueEmail,
  type TestServer,
} from '../support/harness.js';
import { resetLinkOf, type Inbox } from '../support/smtp-inbox.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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
});

describe.each(testDatabases())('the account lifecycle ($database)', ({ database, run }) => {
  let server: TestServer;
  let inbox: Inbox;
  beforeAll(async () => {
    if (run) ({ server, inbox } = await startLifecycleServer(database));
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.close();
  });
  const { status, login, signedIn, sessionsOf, requestReset, confirmReset, resetToken } = lifecycleHelpers(
    () => server,
    () => inbox,
  );

  describe.runIf(run)('changing the password', () => {
    it('ends every other session, keeps this one, and only the new password signs in', async () => {
      const account = await server.signup();
      const other = await signedIn(account.email, account.password);
      const newPassword = 'a brand new pass phrase';
      const changed = await server.send(
        'POST',
        '/api/v1/auth/password',
        { current_password: account.password, new_password: newPassword },
        { session: account.token },
      );
      expect(changed.status).toBe(204);
      expect(await changed.text()).toBe('');
      expect(await status(account.token)).toBe(200);
      expect(await status(other)).toBe(401);
      expect(await login(account.email, account.password)).toBe(401);
      expect(typeof (await login(account.email, newPassword))).toBe('string');
      const row = (await server.rows('users')).find((user) => user.id === account.userId)!;
      expect(row.password_hash).toMatch(/^\$scrypt\$/);
      expect(JSON.stringify(row)).not.toContain(newPassword);
    });

    it('makes a pending reset link stop working', async () => {
      const account = await server.signup();
      const token = await resetToken(account);
      const changed = await server.send(
        'POST',
        '/api/v1/auth/password',
        { current_password: account.password, new_password: 'a brand new pass phrase' },
        { session: account.token },
      );
      expect(changed.status).toBe(204);
      const problem = await expectProblem(await confirmReset(token, 'yet another pass phrase'), 'invalid-request', 400);
      expect(problem.errors?.map((error) => error.pointer)).toEqual(['/token']);
    });
  });

  describe.runIf(run)('the sessions', () => {
    it('are listed newest first with their user agent, which one is current, and never a token', async () => {
      const account = await server.signup();
      const firefox = `Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 ${'x'.repeat(300)}`;
      const second = await signedIn(account.email, account.password, firefox);
      clock.offset += 1;
      const third = await signedIn(account.email, account.password, 'curl/8.5.0');
      const listed = await sessionsOf(second);
      expect(listed).toHaveLength(3);
      expect(listed.map((session) => session.current)).toEqual([false, true, false]);
      expect(listed[0]!.user_agent).toBe('curl/8.5.0');
      expect(listed[1]!.user_agent).toBe(firefox.slice(0, limits.maxUserAgentLength));
      for (const session of listed) {
        expect(Object.keys(session).sort()).toEqual(
          ['created_at', 'current', 'expires_at', 'id', 'last_used_at', 'user_agent'].sort(),
        );
        expect(session.id).toMatch(/^ses_[A-Za-z0-9]+$/);
        expect(Date.parse(session.expires_at)).toBeGreaterThan(Date.parse(session.created_at));
      }
      const created = listed.map((session) => session.created_at);
      expect([...created].sort().reverse()).toEqual(created);
      const body = JSON.stringify(listed);
      for (const token of [account.token, second, third]) {
        expect(body).not.toContain(token);
        expect(body).not.toContain(sha256(token));
      }
      // The ids are not derived from the tokens.
      const rows = await server.rows('sessions');
      for (const session of listed) {
        const row = rows.find((r) => r.id === session.id)!;
        expect(session.id).not.toContain(String(row.token_hash).slice(0, 8));
      }
      // The same list from another session marks that one.
      expect((await sessionsOf(third)).find((session) => session.current)?.user_agent).toBe('curl/8.5.0');
    });

    it('ending the current one signs out and clears the cookie', async () => {
      const account = await server.signup();
      const [current] = await sessionsOf(account.token);
      const ended = await server.send('DELETE', `/api/v1/auth/sessions/${current!.id}`, undefined, {
        headers: { cookie: account.cookie, origin: server.baseUrl },
      });
      expect(ended.status).toBe(204);
      expect(ended.headers.get('set-cookie')).toMatch(/^releases_session=; Max-Age=0/);
      expect(await status(account.token)).toBe(401);
    });

    it('the others end at once, this one stays', async () => {
      const account = await server.signup();
      const others = [await signedIn(account.email, account.password), await signedIn(account.email, account.password)];
      const response = await server.send('DELETE', '/api/v1/auth/sessions', undefined, { session: account.token });
      expect(response.status).toBe(204);
      for (const other of others) expect(await status(other)).toBe(401);
      expect(await status(account.token)).toBe(200);
      expect((await sessionsOf(account.token)).map((session) => session.current)).toEqual([true]);
      expect((await server.send('DELETE', '/api/v1/auth/sessions', undefined, { session: account.token })).status).toBe(
        204,
      );
    });
  });

  describe.runIf(run)('resetting a forgotten password by mail', () => {
    it('mails a link that sets a new password once, ends every session and lets the new password in', async () => {
      const account = await server.signup();
      const other = await signedIn(account.email, account.password);
      const requested = await requestReset(`  ${account.email.toUpperCase()} `);
      expect(requested.status).toBe(202);
      expect(PasswordResetRequestedResponseSchema.parse(await requested.json())).toEqual({
        success: true,
        data: { expires_in_minutes: limits.passwordResetLifetimeMinutes },
      });

      const mail = await inbox.next(account.email);
      expect(mail.to).toEqual([account.email]);
      expect(mail.raw).toMatch(/^From: Releases <no-reply@releases\.test>\r?$/m);
      expect(mail.subject).toBe('Reset your Releases password');
      expect(mail.text).toContain(`${limits.passwordResetLifetimeMinutes} minutes`);
      expect(mail.text).toMatch(/you can ignore this mail/);
      const { url, token } = resetLinkOf(mail);
      expect(`${url.origin}${url.pathname}`).toBe(`${server.baseUrl}/reset-password`);
      expect(url.search).toBe('');
      expect(url.hash).toBe(`#token=${token}`);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url
      expect(mail.html).toContain(`href="${url.href}"`);
      // Following the link opens the web app's page; the token, in the fragment, never reaches the server.
      const page = await fetch(url, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      await page.arrayBuffer();

      // Only the token's hash is stored.
      const [reset] = (await server.rows('password_resets')).filter((row) => row.user_id === account.userId);
      expect(reset!.token_hash).toBe(sha256(token));
      expect(JSON.stringify(await server.rows('password_resets'))).not.toContain(token);

      const newPassword = 'a password found again';
      expect((await confirmReset(token, newPassword)).status).toBe(204);
      expect(await status(account.token)).toBe(401);
      expect(await status(other)).toBe(401);
      expect(await login(account.email, account.password)).toBe(401);
      expect(typeof (await login(account.email, newPassword))).toBe('string');

      // Single use.
      const again = await expectProblem(await confirmReset(token, 'and yet another one'), 'invalid-request', 400);
      expect(again.errors?.map((error) => error.pointer)).toEqual(['/token']);
      expect(again.errors?.[0]?.detail).toMatch(/not a valid reset token/);
      expect((await server.rows('password_resets')).filter((row) => row.user_id === account.userId)).toEqual([]);
    });

    it('replaces an older link with a newer one', async () => {
      const account = await server.signup();
      const older = await resetToken(account);
      const newer = await resetToken(account);
      expect(newer).not.toBe(older);
      await expectProblem(await confirmReset(older, 'a password found again'), 'invalid-request', 400);
      expect((await confirmReset(newer, 'a password found again')).status).toBe(204);
    });
  });

  describe.runIf(run)('deleting the account', () => {
    it('takes the password, then the user, sessions, keys and pending reset are gone, and the cookie cleared', async () => {
      const account = await server.signup();
      const other = await signedIn(account.email, account.password);
      const created = await server.send('POST', '/api/v1/keys', { name: 'mine' }, { session: account.token });
      const key = CreatedApiKeyResponseSchema.parse(await created.json()).data;
      await resetToken(account);

      const wrong = await server.send(
        'DELETE',
        '/api/v1/auth/account',
        { password: 'not the password at all' },
        { headers: { cookie: account.cookie, origin: server.baseUrl } },
      );
      await expectProblem(wrong, 'unauthorized', 401);
      expect(await status(account.token)).toBe(200);
      const missing = await server.send('DELETE', '/api/v1/auth/account', {}, { session: account.token });
      expect((await expectProblem(missing, 'invalid-request', 400)).errors?.[0]?.pointer).toBe('/password');

      const deleted = await server.send(
        'DELETE',
        '/api/v1/auth/account',
        { password: account.password },
        { headers: { cookie: account.cookie, origin: server.baseUrl } },
      );
      expect(deleted.status).toBe(204);
      expect(deleted.headers.get('set-cookie')).toMatch(/^releases_session=; Max-Age=0/);
      expect(await status(account.token)).toBe(401);
      expect(await status(other)).toBe(401);
      expect(await login(account.email, account.password)).toBe(401);
      expect((await server.get('/api/v1/health', { headers: { 'x-api-key': key.key } })).status).toBe(401);
      for (const [table, column] of [
        ['users', 'id'],
        ['sessions', 'user_id'],
        ['api_keys', 'owner_id'],
        ['password_resets', 'user_id'],
      ] as const) {
        expect(
          (await server.rows(table)).filter((row) => row[column] === account.userId),
          table,
        ).toEqual([]);
      }
      // The email is free again.
      expect(
        (await server.send('POST', '/api/v1/auth/signup', { email: account.email, password: testPassword })).status,
      ).toBe(201);
    });
  });
});

describe('signing up by email', () => {
  it('keeps one account per mailbox, however it is spelled', async () => {
    const server = await startTestServer({ releases: 'none' });
    try {
      const email = uniqueEmail();
      await server.signup(email);
      const login = await server.send('POST', '/api/v1/auth/login', {
        email: `\t${email.toUpperCase()}  `,
        password: testPassword,
      });
      expect(login.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
