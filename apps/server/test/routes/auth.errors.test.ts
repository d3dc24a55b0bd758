import { limits } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordRules } from '../../src/auth/password-policy.js';
import { loadConfig } from '../../src/config.js';
import { clock, lifecycleHelpers, startLifecycleServer } from '../support/account-lifecycle.js';
import {
  expectProblem,
  startTestServer,
  testPassword,
  testDatabases,
  uniqueEmail,
  type TestServer,
} from '../support/harness.js';
import type { Inbox } from '../support/smtp-inbox.js';

/** What the account journey (auth.happy.test.ts) is refused on the way: an email taken, in any spelling, at once. */
describe.each(testDatabases())('the account journey ($database)', ({ database, run }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (run) server = await startTestServer({ database, releases: 'none', config: { keyCacheTtlMs: 1_000 } });
  });
  afterAll(() => server?.close());

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
  const { status, login, signedIn, confirmReset, resetToken } = lifecycleHelpers(
    () => server,
    () => inbox,
  );

  describe.runIf(run)('changing the password', () => {
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
  });

  describe.runIf(run)('resetting a forgotten password by mail', () => {
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
});

describe.each(testDatabases())('signing in ($database)', ({ database, run }) => {
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
