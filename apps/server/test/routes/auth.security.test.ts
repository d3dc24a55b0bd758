import { createHash } from 'node:crypto';
import { AuthResponseSchema, CreatedApiKeyResponseSchema, ActiveSessionListResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleHelpers, startLifecycleServer } from '../support/account-lifecycle.js';
import {
  expectProblem,
  logCapture,
  mistyped,
  startTestServer,
  testPassword,
  testDatabases,
  uniqueEmail,
  type SignedUp,
  type TestServer,
} from '../support/harness.js';
import { resetLinkOf, startInbox, type Inbox } from '../support/smtp-inbox.js';
import { describeAuthMatrix } from '../support/auth-matrix.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(testDatabases())('secrets stay secret ($database)', ({ database, run }) => {
  const logs = logCapture();
  let server: TestServer;
  let inbox: Inbox;
  beforeAll(async () => {
    if (!run) return;
    inbox = await startInbox();
    server = await startTestServer({
      database,
      releases: 'none',
      logDestination: logs.stream,
      config: { smtp: { url: inbox.url, from: 'no-reply@releases.test' } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.close();
  });

  it.runIf(run)('never logs, nor stores in clear, a password, token, key or cookie', async () => {
    const secrets: string[] = [];
    const account = await server.signup();
    secrets.push(account.password, account.token, account.cookie);
    const login = await server.send('POST', '/api/v1/auth/login', { email: account.email, password: account.password });
    const session = AuthResponseSchema.parse(await login.json()).data.session;
    secrets.push(session.token);
    const wrong = 'not the password at all';
    secrets.push(wrong);
    await server.send('POST', '/api/v1/auth/login', { email: account.email, password: wrong });
    const created = await server.send(
      'POST',
      '/api/v1/keys',
      { name: 'secret' },
      { headers: { cookie: account.cookie, origin: server.baseUrl } },
    );
    const key = CreatedApiKeyResponseSchema.parse(await created.json()).data;
    secrets.push(key.key);
    await server.get('/api/v1/health', { headers: { 'x-api-key': key.key } });
    await server.get('/api/v1/health', { headers: { 'x-api-key': mistyped(key.key) } });
    await server.get('/api/v1/release', { headers: { authorization: `Bearer ${session.token}` } });
    await server.get('/api/v1/keys', { headers: { cookie: `releases_session=${'x'.repeat(43)}` } });
    await server.send('DELETE', `/api/v1/keys/${key.id}`, undefined, { session: session.token });
    await server.send('POST', '/api/v1/auth/logout', undefined, {
      headers: { cookie: account.cookie, origin: server.baseUrl },
    });
    await server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${session.token}` } });

    const logged = logs.text();
    expect(logged).toContain('"path":"/api/v1/auth/login"'); // the capture works
    for (const secret of secrets) {
      expect(logged).not.toContain(secret);
      // Not even the random part of a key or token.
      expect(logged).not.toContain(secret.slice(4, 24));
    }

    // The database holds hashes only.
    const users = await server.rows('users');
    const user = users.find((row) => row.email === account.email)!;
    // At the configured cost (tests run a cheap one; passwords.test.ts holds production to SPEC §4's).
    const cost = server.services.config.passwordHashCost;
    expect(user.password_hash).toMatch(
      new RegExp(`^\\$scrypt\\$ln=${cost},r=8,p=1\\$[A-Za-z0-9_-]+\\$[A-Za-z0-9_-]+$`),
    );
    const keyRow = (await server.rows('api_keys')).find((row) => row.id === key.id)!;
    expect(keyRow.key_hash).toBe(sha256(key.key));
    // The signup session was ended by the logout; the login session remains, as its hash.
    expect((await server.rows('sessions')).map((row) => row.token_hash)).toContain(sha256(session.token));
    const everything = JSON.stringify([users, await server.rows('api_keys'), await server.rows('sessions')]);
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });

  it.runIf(run)(
    'never logs, nor stores in clear, a reset token or a new password, through the whole lifecycle',
    async () => {
      const account = await server.signup();
      const secrets: string[] = [account.password, account.token, account.cookie];
      const login = await server.send('POST', '/api/v1/auth/login', {
        email: account.email,
        password: account.password,
      });
      const session = AuthResponseSchema.parse(await login.json()).data.session;
      const wrong = 'not the password at all';
      secrets.push(session.token, wrong);
      const changed = 'a changed pass phrase';
      secrets.push(changed);
      await server.send(
        'POST',
        '/api/v1/auth/password',
        { current_password: wrong, new_password: changed },
        { session: session.token },
      );
      await server.send(
        'POST',
        '/api/v1/auth/password',
        { current_password: account.password, new_password: changed },
        { session: session.token },
      );
      const listed = await server.get('/api/v1/auth/sessions', {
        headers: { authorization: `Bearer ${session.token}` },
      });
      const [current] = ActiveSessionListResponseSchema.parse(await listed.json()).data.sessions;
      await server.send('DELETE', '/api/v1/auth/sessions', undefined, { session: session.token });
      await server.send('POST', '/api/v1/auth/password-reset', { email: account.email });
      await server.send('POST', '/api/v1/auth/password-reset', { email: `nobody.${account.email}` });
      const { token: resetToken } = resetLinkOf(await inbox.next(account.email));
      secrets.push(resetToken);
      const found = 'a password found again';
      secrets.push(found);
      await server.send('POST', '/api/v1/auth/password-reset/confirm', {
        token: resetToken,
        new_password: 'password1234',
      });
      await server.send('POST', '/api/v1/auth/password-reset/confirm', { token: resetToken, new_password: found });
      await server.send('POST', '/api/v1/auth/password-reset/confirm', { token: resetToken, new_password: found });
      // A pending reset, as the database holds it until it is used.
      await server.send('POST', '/api/v1/auth/password-reset', { email: account.email });
      const { token: pendingToken } = resetLinkOf(await inbox.next(account.email));
      secrets.push(pendingToken);
      const pending = (await server.rows('password_resets')).find((row) => row.user_id === account.userId)!;
      expect(pending.token_hash).toBe(sha256(pendingToken));
      const last = await server.send('POST', '/api/v1/auth/login', { email: account.email, password: found });
      const lastToken = AuthResponseSchema.parse(await last.json()).data.session.token;
      secrets.push(lastToken);
      expect(current?.id).toMatch(/^ses_/);
      await server.send('DELETE', `/api/v1/auth/sessions/${current!.id}`, undefined, { session: lastToken });
      const everythingBefore = JSON.stringify([
        await server.rows('users'),
        await server.rows('sessions'),
        await server.rows('password_resets'),
      ]);
      for (const secret of secrets) expect(everythingBefore).not.toContain(secret);
      await server.send('DELETE', '/api/v1/auth/account', { password: wrong }, { session: lastToken });
      await server.send('DELETE', '/api/v1/auth/account', { password: found }, { session: lastToken });
      await server.services.resets.settled();

      const logged = logs.text();
      expect(logged).toContain('"path":"/api/v1/auth/password-reset/confirm"'); // the capture works
      // No reset link was logged either: mail went out over SMTP.
      expect(logged).not.toContain('/reset-password#');
      for (const secret of secrets) {
        expect(logged).not.toContain(secret);
        expect(logged).not.toContain(secret.slice(4, 24));
      }
      const everything = JSON.stringify([
        await server.rows('users'),
        await server.rows('sessions'),
        await server.rows('password_resets'),
      ]);
      for (const secret of secrets) expect(everything).not.toContain(secret);
    },
  );
});

describe.each(testDatabases())('an owner shutting out an intruder ($database)', ({ database, run }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({
      database,
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 100, apiKey: 100, session: 3, auth: 100 } },
    });
  });
  afterAll(() => server?.close());

  it.runIf(run)(
    "is never refused by the user's quota, however much of it another session spent (SPEC §3.7)",
    async () => {
      const owner = await server.signup();
      const created = await server.send('POST', '/api/v1/keys', { name: 'leaked' }, { session: owner.token });
      const key = CreatedApiKeyResponseSchema.parse(await created.json()).data;
      // A stolen second session of the same account spends the whole per-user quota...
      const login = await server.send('POST', '/api/v1/auth/login', { email: owner.email, password: owner.password });
      const intruder = AuthResponseSchema.parse(await login.json()).data.session.token;
      for (let i = 0; i < 5; i++)
        await server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${intruder}` } });
      await expectProblem(
        await server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${owner.token}` } }),
        'rate-limited',
        429,
      );
      // ...and the owner still lists the keys (to find the one to revoke: issue 30), revokes it and signs out, as
      // often as it takes.
      for (let i = 0; i < 2; i++) {
        const listed = await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${owner.token}` } });
        expect(listed.status).toBe(200);
        expect(listed.headers.get('ratelimit')).toBeNull();
      }
      for (let i = 0; i < 2; i++) {
        const revoked = await server.send('DELETE', `/api/v1/keys/${key.id}`, undefined, { session: owner.token });
        expect(revoked.status).toBe(200);
        expect(revoked.headers.get('ratelimit')).toBeNull();
      }
      expect((await server.send('POST', '/api/v1/auth/logout', undefined, { session: intruder })).status).toBe(204);
      expect((await server.send('POST', '/api/v1/auth/logout', undefined, { session: owner.token })).status).toBe(204);
    },
  );

  it.runIf(run)(
    "ends the intruder's session, the other sessions, changes the password and deletes the account, whatever quota the intruder spent",
    async () => {
      const owner = await server.signup();
      const intruderSession = async () => {
        const login = await server.send('POST', '/api/v1/auth/login', { email: owner.email, password: owner.password });
        const token = AuthResponseSchema.parse(await login.json()).data.session.token;
        // The stolen session spends the whole per-user quota...
        for (let i = 0; i < 5; i++)
          await server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${token}` } });
        return token;
      };
      const intruder = await intruderSession();
      await expectProblem(
        await server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${owner.token}` } }),
        'rate-limited',
        429,
      );
      const uncounted = (response: Response, status: number) => {
        expect(response.status).toBe(status);
        expect(response.headers.get('ratelimit')).toBeNull();
      };
      // ...and the owner still lists the sessions (uncounted, issue 30) and ends the intruder's by its id,
      const listed = await server.get('/api/v1/auth/sessions', { headers: { authorization: `Bearer ${owner.token}` } });
      uncounted(listed, 200);
      const others = ActiveSessionListResponseSchema.parse(await listed.json()).data.sessions.filter((s) => !s.current);
      const [row] = (await server.rows('sessions')).filter(
        (session) => session.user_id === owner.userId && session.token_hash === sha256(intruder),
      );
      expect(others.map((session) => session.id)).toContain(String(row!.id));
      uncounted(
        await server.send('DELETE', `/api/v1/auth/sessions/${String(row!.id)}`, undefined, { session: owner.token }),
        204,
      );
      // ends every other session,
      await intruderSession();
      uncounted(await server.send('DELETE', '/api/v1/auth/sessions', undefined, { session: owner.token }), 204);
      // changes the password,
      await intruderSession();
      const newPassword = 'the owner took it back';
      uncounted(
        await server.send(
          'POST',
          '/api/v1/auth/password',
          { current_password: owner.password, new_password: newPassword },
          { session: owner.token },
        ),
        204,
      );
      // and deletes the account.
      uncounted(
        await server.send('DELETE', '/api/v1/auth/account', { password: newPassword }, { session: owner.token }),
        204,
      );
    },
  );
});

describe.each(testDatabases())('cross-site request forgery ($database)', ({ database, run }) => {
  let server: TestServer;
  let account: SignedUp;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database, releases: 'none' });
    account = await server.signup();
  });
  afterAll(() => server?.close());

  const createWithCookie = (headers: Record<string, string>) =>
    server.send('POST', '/api/v1/keys', { name: 'csrf' }, { headers: { cookie: account.cookie, ...headers } });

  it.runIf(run).each([
    ['a cross-site Origin', { origin: 'https://evil.example' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: cross-site, whatever the Origin says', { 'sec-fetch-site': 'cross-site', origin: 'ORIGIN' }],
    ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
    ['no Origin at all', {}],
    ['Origin: null', { origin: 'null' }],
  ])('refuses a cookie-authenticated write with %s', async (_label, headers) => {
    const resolved = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, v === 'ORIGIN' ? server.baseUrl : v]),
    );
    const problem = await expectProblem(await createWithCookie(resolved), 'forbidden', 403);
    expect(problem.detail).toMatch(/cross-site request refused/);
  });

  it.runIf(run)('refuses cookie-authenticated revocation and logout from elsewhere too', async () => {
    const cross = { cookie: account.cookie, origin: 'https://evil.example' };
    await expectProblem(
      await server.send('DELETE', '/api/v1/keys/key_x', undefined, { headers: cross }),
      'forbidden',
      403,
    );
    await expectProblem(
      await server.send('POST', '/api/v1/auth/logout', undefined, { headers: cross }),
      'forbidden',
      403,
    );
    expect((await server.get('/api/v1/auth/session', { headers: { cookie: account.cookie } })).status).toBe(200);
  });

  it.runIf(run)('accepts our own origin, by Sec-Fetch-Site or by Origin', async () => {
    expect((await createWithCookie({ 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    expect((await createWithCookie({ origin: server.baseUrl })).status).toBe(201);
  });

  it.runIf(run)('exempts credentials sent in headers, which no other site can attach', async () => {
    const bearer = await server.send(
      'POST',
      '/api/v1/keys',
      { name: 'bearer' },
      { session: account.token, headers: { origin: 'https://evil.example' } },
    );
    expect(bearer.status).toBe(201);
  });

  it.runIf(run)('lets reads through (GET is safe) and refuses cross-site sign-ins from a browser', async () => {
    expect(
      (await server.get('/api/v1/keys', { headers: { cookie: account.cookie, 'sec-fetch-site': 'cross-site' } }))
        .status,
    ).toBe(200);
    const forged = await server.send(
      'POST',
      '/api/v1/auth/login',
      { email: account.email, password: account.password },
      {
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      },
    );
    await expectProblem(forged, 'forbidden', 403);
    // Outside a browser (no Origin, no Sec-Fetch-Site) signing in just works.
    expect(
      (await server.send('POST', '/api/v1/auth/login', { email: account.email, password: account.password })).status,
    ).toBe(200);
  });
});

describe.each(testDatabases())('signing in ($database)', ({ database, run }) => {
  it.runIf(run)('answers an unknown email and a wrong password alike, with the same hashing work', async () => {
    // The work is counted, not timed (timings on a shared machine are noise at the tests' hash cost): each
    // attempt must pay for exactly one scrypt derivation at the server's cost, whether the email has an
    // account or not. Operators see the same counter on /metrics.
    const server = await startTestServer({
      database,
      releases: 'none',
      config: { metrics: { host: '127.0.0.1', port: 9464 } },
    });
    try {
      const account = await server.signup();
      const cost = String(server.services.config.passwordHashCost);
      const hashesAtCost = async () => {
        const metric = server.services.metrics.registry?.getSingleMetric('releases_password_hashes_total');
        if (!metric) throw new Error('releases_password_hashes_total is not registered');
        const { values } = await metric.get();
        return values.filter((sample) => sample.labels.cost === cost).reduce((sum, sample) => sum + sample.value, 0);
      };
      const attempt = async (email: string, password: string) => {
        const before = await hashesAtCost();
        const response = await server.send('POST', '/api/v1/auth/login', { email, password });
        const problem = await expectProblem(response, 'unauthorized', 401);
        return {
          hashes: (await hashesAtCost()) - before,
          detail: problem.detail,
          challenge: response.headers.get('www-authenticate'),
        };
      };
      // The decoy for unknown emails is made at start-up (warmUp) or on first use; from then on each unknown
      // email costs one derivation, as a wrong password does.
      await attempt(uniqueEmail(), 'whatever password');
      for (let i = 0; i < 3; i++) {
        const unknown = await attempt(uniqueEmail(), 'a wrong password');
        const wrong = await attempt(account.email, 'a wrong password');
        expect(unknown.detail).toBe('The email or password is not right.');
        expect(wrong.detail).toBe(unknown.detail);
        expect(wrong.challenge).toBe(unknown.challenge);
        expect(unknown.hashes).toBe(1);
        expect(wrong.hashes).toBe(1);
      }
    } finally {
      await server.close();
    }
  });

  it.runIf(run)('limits sign-in attempts per address: the 11th in a minute is a 429', async () => {
    const server = await startTestServer({
      database,
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 1000, apiKey: 1000, session: 1000, auth: 10 } },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        statuses.push(
          (await server.send('POST', '/api/v1/auth/login', { email: uniqueEmail(), password: testPassword })).status,
        );
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      const limited = await server.send('POST', '/api/v1/auth/login', { email: uniqueEmail(), password: testPassword });
      await expectProblem(limited, 'rate-limited', 429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-policy')).toMatch(/^"auth"; q=10; w=60/);
      // Sign-ups share the same quota; other endpoints do not.
      await expectProblem(
        await server.send('POST', '/api/v1/auth/signup', { email: uniqueEmail(), password: testPassword }),
        'rate-limited',
        429,
      );
      expect((await server.get('/api/v1/release')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/ and lives as long as the session', async () => {
    const server = await startTestServer({ releases: 'none' });
    try {
      const { setCookie } = await server.signup();
      expect(setCookie).toMatch(
        /^releases_session=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
      );
      // Max-Age runs to the session's end: the 7-day idle expiry (less the moments the request took).
      const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)?.[1]);
      expect(maxAge).toBeGreaterThan(7 * 86_400 - 60);
      expect(maxAge).toBeLessThanOrEqual(7 * 86_400);
      expect(setCookie).not.toMatch(/Secure|Domain/);
    } finally {
      await server.close();
    }
  });

  it('is __Host- prefixed and Secure under an https public URL', async () => {
    const server = await startTestServer({ releases: 'none', config: { publicUrl: 'https://releases.example.com' } });
    try {
      const account = await server.signup();
      expect(account.setCookie).toMatch(
        /^__Host-releases_session=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
      );
      expect(account.setCookie).not.toMatch(/Domain/);
      // Only that name is read; the plain one is ignored there.
      const token = account.cookie.split('=')[1]!;
      expect(
        (await server.get('/api/v1/auth/session', { headers: { cookie: `__Host-releases_session=${token}` } })).status,
      ).toBe(200);
      expect(
        (await server.get('/api/v1/auth/session', { headers: { cookie: `releases_session=${token}` } })).status,
      ).toBe(401);
      // The origin check compares with the public URL.
      const cookie = `__Host-releases_session=${token}`;
      const ours = await server.send(
        'POST',
        '/api/v1/keys',
        { name: 'x' },
        { headers: { cookie, origin: 'https://releases.example.com' } },
      );
      expect(ours.status).toBe(201);
      const plain = await server.send(
        'POST',
        '/api/v1/keys',
        { name: 'x' },
        { headers: { cookie, origin: 'http://releases.example.com' } },
      );
      await expectProblem(plain, 'forbidden', 403);
    } finally {
      await server.close();
    }
  });

  it('is ignored by a route that takes no credential, and cleared when it no longer works', async () => {
    const server = await startTestServer({ releases: 'none' });
    try {
      const stale = `releases_session=${'A'.repeat(43)}`;
      // Signing in with a stale cookie in the jar works: the cookie is not read there.
      const account = await server.signup();
      const login = await server.send(
        'POST',
        '/api/v1/auth/login',
        { email: account.email, password: account.password },
        { headers: { cookie: stale } },
      );
      expect(login.status).toBe(200);
      // Browsing with it is a 401 that clears it (never a silent downgrade to anonymous).
      const browse = await server.get('/api/v1/release', { headers: { cookie: stale } });
      await expectProblem(browse, 'unauthorized', 401);
      expect(browse.headers.get('set-cookie')).toMatch(/^releases_session=; Max-Age=0/);
      // A cookie that is not even a token's shape is treated the same.
      const garbage = await server.get('/api/v1/release', { headers: { cookie: 'releases_session=%00%ff' } });
      await expectProblem(garbage, 'unauthorized', 401);
    } finally {
      await server.close();
    }
  });
});

describe.each(testDatabases())('asking for a password reset ($database)', ({ database, run }) => {
  it.runIf(run)('answers a known and an unknown email alike, before any mail is sent', async () => {
    const inbox = await startInbox();
    // A mail server that does not answer until the end: were the mail in the request's path, a known email's
    // answer would wait for it. Checked by order, not by timing (timings on a shared machine are noise).
    const release = inbox.hold();
    const server = await startTestServer({
      database,
      releases: 'none',
      config: { smtp: { url: inbox.url, from: 'no-reply@releases.test' } },
    });
    try {
      const account = await server.signup();
      const ask = async (email: string) => {
        const answered = server.send('POST', '/api/v1/auth/password-reset', { email }).then(async (response) => ({
          status: response.status,
          body: await response.text(),
        }));
        const waited = new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('the answer waited for the mail server')), 10_000).unref(),
        );
        return Promise.race([answered, waited]);
      };
      for (let i = 0; i < 4; i++) {
        const unknown = await ask(uniqueEmail());
        const known = await ask(account.email);
        expect(unknown.status).toBe(202);
        expect(known).toEqual(unknown);
      }
      // Every answer came while the mail server held its mail.
      expect(inbox.messages).toHaveLength(0);
      release();
      // Every mail went out all the same (the known email's), after its answer.
      await server.services.resets.settled();
      expect(inbox.messages.filter((mail) => mail.to.includes(account.email))).toHaveLength(4);
      expect(inbox.messages).toHaveLength(4);
    } finally {
      release();
      await server.close();
      await inbox.close();
    }
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
  const { status, signedIn, sessionsOf, requestReset } = lifecycleHelpers(
    () => server,
    () => inbox,
  );

  describe.runIf(run)('the sessions', () => {
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
  });
});

describeAuthMatrix('auth');
