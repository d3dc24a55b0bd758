import { createHash } from 'node:crypto';
import {
  ActiveSessionListResponseSchema,
  AuthResponseSchema,
  CreatedApiKeyResponseSchema,
  limits,
  PasswordResetRequestedResponseSchema,
  type ActiveSession,
} from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordRules } from '../src/auth/password-policy.js';
import {
  expectProblem,
  startTestServer,
  testDatabases,
  testPassword,
  uniqueEmail,
  type SignedUp,
  type TestServer,
} from './harness.js';
import { resetLinkOf, startInbox, type Inbox } from './smtp-inbox.js';

/**
 * The account's whole lifecycle (SPEC §3.7) over HTTP, on both backends: changing the password, the sessions
 * (list, end one, end the others), resetting a forgotten password by mail (real SMTP, the link followed), and
 * deleting the account.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const mailFrom = 'Releases <no-reply@releases.test>';
/** A clock the expiry tests move forward. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };

describe.each(testDatabases())('the account lifecycle ($database)', ({ database, run }) => {
  let server: TestServer;
  let inbox: Inbox;
  beforeAll(async () => {
    if (!run) return;
    inbox = await startInbox();
    server = await startTestServer({
      database,
      releases: 'none',
      clock,
      config: { smtp: { url: inbox.url, from: mailFrom } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.close();
  });

  const status = (token: string) =>
    server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
  const login = async (email: string, password: string, userAgent = 'test-client/1.0') => {
    const response = await server.send(
      'POST',
      '/api/v1/auth/login',
      { email, password },
      { headers: { 'user-agent': userAgent } },
    );
    return response.status === 200
      ? AuthResponseSchema.parse(await response.json()).data.session.token
      : response.status;
  };
  const signedIn = async (email: string, password: string, userAgent?: string): Promise<string> => {
    const token = await login(email, password, userAgent);
    if (typeof token !== 'string') throw new Error(`login failed: ${token}`);
    return token;
  };
  const sessionsOf = async (token: string): Promise<ActiveSession[]> => {
    const response = await server.get('/api/v1/auth/sessions', { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return ActiveSessionListResponseSchema.parse(await response.json()).data.sessions;
  };
  const requestReset = (email: string) => server.send('POST', '/api/v1/auth/password-reset', { email });
  const confirmReset = (token: string, newPassword: string) =>
    server.send('POST', '/api/v1/auth/password-reset/confirm', { token, new_password: newPassword });
  /** Asks for a reset of `account` and follows the link in the mail it gets. */
  const resetToken = async (account: SignedUp): Promise<string> => {
    expect((await requestReset(account.email)).status).toBe(202);
    return resetLinkOf(await inbox.next(account.email)).token;
  };

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

    it('is a 401 with a wrong current password, and changes nothing', async () => {
      const account = await server.signup();
      const other = await signedIn(account.email, account.password);
      const response = await server.send(
        'POST',
        '/api/v1/auth/password',
        { current_password: 'not the password at all', new_password: 'a brand new pass phrase' },
        { session: account.token },
      );
      expect((await expectProblem(response, 'unauthorized', 401)).detail).toBe('The password is not right.');
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="releases"');
      expect(await status(other)).toBe(200);
      expect(typeof (await login(account.email, account.password))).toBe('string');
    });

    it('refuses a common password, a repeated pattern and the email, naming new_password', async () => {
      const account = await server.signup();
      for (const [newPassword, detail] of [
        ['password123', passwordRules.common],
        ['Qwertyuiop', passwordRules.common],
        ['xxxxxxxxxx', passwordRules.repeated],
        [account.email.toUpperCase(), passwordRules.email],
        ['short', /at least 10 characters/],
      ] as const) {
        const response = await server.send(
          'POST',
          '/api/v1/auth/password',
          { current_password: account.password, new_password: newPassword },
          { session: account.token },
        );
        const problem = await expectProblem(response, 'invalid-request', 400);
        expect(problem.errors).toHaveLength(1);
        expect(problem.errors?.[0]?.pointer).toBe('/new_password');
        expect(problem.errors?.[0]?.detail).toMatch(detail);
      }
      expect(typeof (await login(account.email, account.password))).toBe('string');
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

    it('one ends by id; another account’s id and an unknown one are the same 404', async () => {
      const account = await server.signup();
      const other = await signedIn(account.email, account.password);
      const stranger = await server.signup();
      const [otherSession] = (await sessionsOf(other)).filter((session) => session.current);
      const [strangers] = await sessionsOf(stranger.token);
      const stolen = await server.send('DELETE', `/api/v1/auth/sessions/${strangers!.id}`, undefined, {
        session: account.token,
      });
      const problem = await expectProblem(stolen, 'not-found', 404);
      const unknown = await server.send('DELETE', '/api/v1/auth/sessions/ses_doesnotexist', undefined, {
        session: account.token,
      });
      expect((await expectProblem(unknown, 'not-found', 404)).detail).toBe(
        problem.detail.replace(strangers!.id, 'ses_doesnotexist'),
      );
      expect(await status(stranger.token)).toBe(200);
      const malformed = await server.send('DELETE', '/api/v1/auth/sessions/key_nope', undefined, {
        session: account.token,
      });
      expect((await expectProblem(malformed, 'invalid-request', 400)).errors).toEqual([
        { parameter: 'id', detail: 'is not a session id (they look like ses_...)' },
      ]);

      const ended = await server.send('DELETE', `/api/v1/auth/sessions/${otherSession!.id}`, undefined, {
        session: account.token,
      });
      expect(ended.status).toBe(204);
      expect(ended.headers.get('set-cookie')).toBeNull();
      expect(await status(other)).toBe(401);
      expect(await status(account.token)).toBe(200);
      expect((await sessionsOf(account.token)).map((session) => session.id)).not.toContain(otherSession!.id);
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

    it('refuse cookie-authenticated ending from another site (CSRF)', async () => {
      const account = await server.signup();
      const cross = { cookie: account.cookie, origin: 'https://evil.example' };
      for (const [method, path] of [
        ['DELETE', '/api/v1/auth/sessions'],
        ['DELETE', '/api/v1/auth/sessions/ses_whatever'],
      ] as const) {
        await expectProblem(await server.send(method, path, undefined, { headers: cross }), 'forbidden', 403);
      }
      await expectProblem(
        await server.send(
          'POST',
          '/api/v1/auth/password',
          { current_password: account.password, new_password: 'a brand new pass phrase' },
          { headers: cross },
        ),
        'forbidden',
        403,
      );
      await expectProblem(
        await server.send('DELETE', '/api/v1/auth/account', { password: account.password }, { headers: cross }),
        'forbidden',
        403,
      );
      expect(await status(account.token)).toBe(200);
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

    it('answers an unknown email with the same 202 and mails nothing', async () => {
      const account = await server.signup();
      const unknown = uniqueEmail();
      const [forUnknown, forKnown] = await Promise.all([requestReset(unknown), requestReset(account.email)]);
      expect(forUnknown.status).toBe(202);
      expect(forKnown.status).toBe(202);
      expect(await forUnknown.text()).toBe(await forKnown.text());
      await inbox.next(account.email);
      await server.services.resets.settled();
      expect(inbox.messages.filter((mail) => mail.to.includes(unknown))).toEqual([]);
    });

    it('replaces an older link with a newer one', async () => {
      const account = await server.signup();
      const older = await resetToken(account);
      const newer = await resetToken(account);
      expect(newer).not.toBe(older);
      await expectProblem(await confirmReset(older, 'a password found again'), 'invalid-request', 400);
      expect((await confirmReset(newer, 'a password found again')).status).toBe(204);
    });

    it('refuses a link after 30 minutes', async () => {
      const account = await server.signup();
      const token = await resetToken(account);
      clock.offset += limits.passwordResetLifetimeMinutes * 60_000 + 1_000;
      try {
        const problem = await expectProblem(
          await confirmReset(token, 'a password found again'),
          'invalid-request',
          400,
        );
        expect(problem.errors?.[0]?.pointer).toBe('/token');
      } finally {
        clock.offset -= limits.passwordResetLifetimeMinutes * 60_000 + 1_000;
      }
      expect(await login(account.email, account.password)).not.toBe(401);
    });

    it('uses a token up exactly once, however many confirm it at the same moment', async () => {
      const account = await server.signup();
      const token = await resetToken(account);
      const answers = await Promise.all(
        ['first new pass phrase', 'second new pass phrase', 'third new pass phrase'].map((password) =>
          confirmReset(token, password),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([204, 400, 400]);
    });

    it('refuses a common new password and keeps the link usable', async () => {
      const account = await server.signup();
      const token = await resetToken(account);
      const problem = await expectProblem(await confirmReset(token, 'iloveyou12'), 'invalid-request', 400);
      expect(problem.errors).toEqual([{ pointer: '/new_password', detail: passwordRules.common }]);
      expect(problem.detail).toMatch(/most common passwords/);
      expect((await confirmReset(token, 'a password found again')).status).toBe(204);
    });

    it('refuses unknown and malformed tokens, naming token', async () => {
      for (const token of ['A'.repeat(43), 'short', `${'A'.repeat(42)}!`]) {
        const problem = await expectProblem(
          await confirmReset(token, 'a password found again'),
          'invalid-request',
          400,
        );
        expect(problem.errors?.map((error) => error.pointer)).toEqual(['/token']);
      }
    });

    it('validates the request like signing in: an email, nothing else', async () => {
      for (const [body, pointer] of [
        [{ email: 'not an email' }, '/email'],
        [{ email: `a\u202eb@example.com` }, '/email'],
        [{ email: uniqueEmail(), admin: true }, '/admin'],
        [{}, '/email'],
      ] as const) {
        const problem = await expectProblem(
          await server.send('POST', '/api/v1/auth/password-reset', body),
          'invalid-request',
          400,
        );
        expect(problem.errors?.map((error) => error.pointer)).toContain(pointer);
      }
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
