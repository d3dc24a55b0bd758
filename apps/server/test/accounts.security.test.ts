import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  ActiveSessionListResponseSchema,
  ApiKeyListResponseSchema,
  AuthResponseSchema,
  CreatedApiKeyResponseSchema,
} from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordRules } from '../src/auth/password-policy.js';
import { loadConfig } from '../src/config.js';
import {
  expectProblem,
  mistyped,
  startTestServer,
  testPassword,
  testDatabases,
  uniqueEmail,
  type SignedUp,
  type TestServer,
} from './harness.js';
import { resetLinkOf, startInbox, type Inbox } from './smtp-inbox.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every log line the server writes, kept for inspection. */
function logCapture(): { stream: Writable; text: () => string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => lines.join('') };
}

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

  it.runIf(run)('the health check takes only an API key, and says so to a session', async () => {
    for (const headers of [{ authorization: `Bearer ${alice.token}` }, { cookie: alice.cookie }]) {
      const response = await server.get('/api/v1/health', { headers });
      const problem = await expectProblem(response, 'unauthorized', 401);
      expect(problem.detail).toBe(
        'This endpoint takes an API key in the x-api-key header; a session is not accepted here.',
      );
    }
  });

  it.runIf(run)('the release endpoints accept a session too', async () => {
    for (const headers of [{ authorization: `Bearer ${alice.token}` }, { cookie: alice.cookie }]) {
      const response = await server.get('/api/v1/release', { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
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
        await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${intruder}` } });
      await expectProblem(
        await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${owner.token}` } }),
        'rate-limited',
        429,
      );
      // ...and the owner still revokes the key and signs out, as often as it takes.
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
        for (let i = 0; i < 5; i++) await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${token}` } });
        return token;
      };
      const intruder = await intruderSession();
      await expectProblem(
        await server.get('/api/v1/auth/sessions', { headers: { authorization: `Bearer ${owner.token}` } }),
        'rate-limited',
        429,
      );
      const uncounted = (response: Response, status: number) => {
        expect(response.status).toBe(status);
        expect(response.headers.get('ratelimit')).toBeNull();
      };
      // ...and the owner still ends it by id (the id as the database knows it: listing is counted, and spent),
      const [row] = (await server.rows('sessions')).filter(
        (session) => session.user_id === owner.userId && session.token_hash === sha256(intruder),
      );
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

  it.runIf(run)('validates the body with problems that point at the field', async () => {
    const server = await startTestServer({ database, releases: 'none' });
    try {
      const cases: Array<[unknown, string, RegExp]> = [
        [{ email: 'not-an-email', password: testPassword }, '/email', /must be an email address/],
        [{ email: uniqueEmail(), password: 'short' }, '/password', /at least 10 characters/],
        [{ email: uniqueEmail(), password: 'x'.repeat(257) }, '/password', /at most 256 characters/],
        [
          { email: 'same.as.password@example.com', password: ' SAME.as.password@example.com' },
          '/password',
          /must not be the email/,
        ],
        [{ email: uniqueEmail(), password: testPassword, admin: true }, '/admin', /is not a known field/],
        [{ email: uniqueEmail() }, '/password', /is required/],
        [[], '/', /./],
      ];
      for (const [body, pointer, detail] of cases) {
        const problem = await expectProblem(
          await server.send('POST', '/api/v1/auth/signup', body),
          'invalid-request',
          400,
        );
        expect(problem.errors?.map((e) => e.pointer)).toContain(pointer);
        expect(problem.detail).toMatch(detail);
      }
      const account = await server.signup();
      for (const [body, pointer] of [
        [{ name: '' }, '/name'],
        [{ name: '   ' }, '/name'],
        [{ name: 'x'.repeat(65) }, '/name'],
        [{ name: 'ok', expires_in_days: 0 }, '/expires_in_days'],
        [{ name: 'ok', expires_in_days: 366 }, '/expires_in_days'],
        [{ name: 'ok', expires_in_days: 1.5 }, '/expires_in_days'],
        [{ name: 'ok', expires_in_days: '30' }, '/expires_in_days'],
        [{ name: 'ok', owner: 'usr_other' }, '/owner'],
      ] as const) {
        const response = await server.send('POST', '/api/v1/keys', body, { session: account.token });
        const problem = await expectProblem(response, 'invalid-request', 400);
        expect(problem.errors?.map((e) => e.pointer)).toContain(pointer);
      }
      const badId = await server.send('DELETE', '/api/v1/keys/not-a-key-id', undefined, { session: account.token });
      expect((await expectProblem(badId, 'invalid-request', 400)).errors).toEqual([
        { parameter: 'id', detail: 'is not an API key id (they look like key_...)' },
      ]);
    } finally {
      await server.close();
    }
  });

  it.runIf(run)('is closed when ALLOW_SIGNUP is false, its default in production', async () => {
    expect(loadConfig({ NODE_ENV: 'production' }).allowSignup).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development' }).allowSignup).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', ALLOW_SIGNUP: 'true' }).allowSignup).toBe(true);
    const server = await startTestServer({ database, releases: 'none', config: { allowSignup: false } });
    try {
      const response = await server.send('POST', '/api/v1/auth/signup', {
        email: uniqueEmail(),
        password: testPassword,
      });
      expect((await expectProblem(response, 'forbidden', 403)).detail).toMatch(/Signing up is closed/);
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

describe('a password reset without SMTP_URL', () => {
  async function resetWithoutMail(env: 'production'): Promise<{ logged: string; account: SignedUp }> {
    const logs = logCapture();
    const server = await startTestServer({ releases: 'none', logDestination: logs.stream, config: { env } });
    try {
      const account = await server.signup();
      expect((await server.send('POST', '/api/v1/auth/password-reset', { email: account.email })).status).toBe(202);
      await server.services.resets.settled();
      return { logged: logs.text(), account };
    } finally {
      await server.close();
    }
  }

  it('logs the link once in development, and the link works', async () => {
    const logs = logCapture();
    const server = await startTestServer({
      releases: 'none',
      logDestination: logs.stream,
      config: { env: 'development' },
    });
    try {
      const account = await server.signup();
      expect((await server.send('POST', '/api/v1/auth/password-reset', { email: account.email })).status).toBe(202);
      await server.services.resets.settled();
      const links = logs.text().match(/https?:\/\/[^"\s]+\/reset-password#token=[A-Za-z0-9_-]{43}/g) ?? [];
      expect(links).toHaveLength(1);
      const token = new URL(links[0]!).hash.slice('#token='.length);
      const confirmed = await server.send('POST', '/api/v1/auth/password-reset/confirm', {
        token,
        new_password: 'a password found again',
      });
      expect(confirmed.status).toBe(204);
    } finally {
      await server.close();
    }
  });

  it('logs a warning without the link in production, and sends nothing', async () => {
    const { logged, account } = await resetWithoutMail('production');
    expect(logged).toMatch(/SMTP_URL is not set: no mail was sent/);
    expect(logged).not.toContain('/reset-password');
    expect(logged).not.toContain('token=');
    expect(logged).not.toContain(account.email);
  });
});

describe.each(testDatabases())('common passwords ($database)', ({ database, run }) => {
  it.runIf(run)('are refused on sign-up with a 400 that says so; an old account still signs in with one', async () => {
    const server = await startTestServer({ database, releases: 'none' });
    try {
      expect(server.services.accounts.newPasswordProblem('x', 'a@example.com')).toBeUndefined();
      for (const [password, detail] of [
        ['xxxxxxxxxx', passwordRules.repeated],
        ['password123', passwordRules.common],
        ['PASSWORD123', passwordRules.common],
        ['1234567890', passwordRules.common],
        ['abcabcabcabc', passwordRules.repeated],
        ['sunshinesunshine', passwordRules.repeated],
      ] as const) {
        const response = await server.send('POST', '/api/v1/auth/signup', { email: uniqueEmail(), password });
        const problem = await expectProblem(response, 'invalid-request', 400);
        expect(problem.errors).toEqual([{ pointer: '/password', detail }]);
      }
      const refused = await server.send('POST', '/api/v1/auth/signup', {
        email: uniqueEmail(),
        password: 'iloveyou12',
      });
      expect((await expectProblem(refused, 'invalid-request', 400)).detail).toMatch(
        /password is among the most common passwords/,
      );
      // An account made before the rule (here: straight in the database) signs in with its common password.
      const email = uniqueEmail();
      const old = await server.services.accounts.createUser(email, 'password123');
      expect(old).not.toBe('email-taken');
      expect((await server.send('POST', '/api/v1/auth/login', { email, password: 'password123' })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
