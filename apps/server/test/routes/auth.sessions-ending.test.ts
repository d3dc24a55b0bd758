import { createHash } from 'node:crypto';
import { ActiveSessionListResponseSchema, AuthResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDatabases, type SignedUp, type TestServer } from '../support/harness.js';
import { SessionLookups } from '../support/session-lookups.js';

/**
 * Every way of ending sessions (SPEC §3.7) takes effect at once on the instance that answers, for every request
 * that arrives after its 204, also for requests whose read of the session was already on its way back from
 * the database: ending one by id, ending the others, a new password, a password reset, a deleted account. The
 * technique of http/caches.test.ts: the session lookup of one request reads its row and then waits, while the owner
 * ends the session; released after the 204, that request must be refused.
 */
describe.each(testDatabases())(
  'ending sessions, with requests already waiting on the database ($database)',
  ({ database, run }) => {
    let server: TestServer;
    const lookups = new SessionLookups();

    beforeAll(async () => {
      if (!run) return;
      server = await startTestServer({
        database,
        releases: 'none',
        wrapStorage: lookups.wrap,
      });
    });
    afterAll(() => server?.close());

    // A route that reads nothing of the user beyond the session (the key list), so only the session can refuse it.
    const sessionStatus = (token: string) =>
      server.get('/api/v1/keys', { headers: { authorization: `Bearer ${token}` } }).then((response) => response.status);

    const loginAgain = async (account: SignedUp): Promise<string> => {
      const response = await server.send('POST', '/api/v1/auth/login', {
        email: account.email,
        password: account.password,
      });
      return AuthResponseSchema.parse(await response.json()).data.session.token;
    };

    /**
     * A request with `victim` whose lookup has read the session's row and waits; `end` runs meanwhile and must
     * answer 204; then the waiting request is released and must be refused, and so must every later one.
     */
    async function refusedWhileWaiting(victim: string, end: () => Promise<Response>): Promise<void> {
      // A fresh token: nothing of it is reused from memory, so its request goes to the database.
      const { read, release } = lookups.holdNext();
      const waiting = sessionStatus(victim);
      await read;
      const ended = await end();
      expect(ended.status).toBe(204);
      release();
      expect(await waiting).toBe(401);
      for (let i = 0; i < 3; i++) expect(await sessionStatus(victim)).toBe(401);
    }

    const sessionIdOf = async (token: string): Promise<string> => {
      const response = await server.get('/api/v1/auth/sessions', { headers: { authorization: `Bearer ${token}` } });
      return ActiveSessionListResponseSchema.parse(await response.json()).data.sessions.find((s) => s.current)!.id;
    };

    it.runIf(run)('ending one session by id', async () => {
      const account = await server.signup();
      const victim = await loginAgain(account);
      const id = await sessionIdOf(victim);
      // Its row is found by a request that then waits; the id's listing above reused nothing for the victim.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await refusedWhileWaiting(victim, () =>
        server.send('DELETE', `/api/v1/auth/sessions/${id}`, undefined, { session: account.token }),
      );
      expect(await sessionStatus(account.token)).toBe(200);
    });

    it.runIf(run)('ending the other sessions', async () => {
      const account = await server.signup();
      const victim = await loginAgain(account);
      await refusedWhileWaiting(victim, () =>
        server.send('DELETE', '/api/v1/auth/sessions', undefined, { session: account.token }),
      );
      expect(await sessionStatus(account.token)).toBe(200);
    });

    it.runIf(run)('a new password', async () => {
      const account = await server.signup();
      const victim = await loginAgain(account);
      await refusedWhileWaiting(victim, () =>
        server.send(
          'POST',
          '/api/v1/auth/password',
          { current_password: account.password, new_password: 'a brand new pass phrase' },
          { session: account.token },
        ),
      );
      expect(await sessionStatus(account.token)).toBe(200);
    });

    it.runIf(run)('a password reset', async () => {
      const account = await server.signup();
      const victim = await loginAgain(account);
      // A token as the mail would carry it (the mail itself is routes/auth.happy.test.ts's business).
      const token = 'T'.repeat(43);
      await server.services.storage.passwordResets.replace({
        userId: account.userId,
        tokenHash: createHash('sha256').update(token).digest('hex'),
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
      await refusedWhileWaiting(victim, () =>
        server.send('POST', '/api/v1/auth/password-reset/confirm', { token, new_password: 'a password found again' }),
      );
      expect(await sessionStatus(account.token)).toBe(401);
    });

    it.runIf(run)('a deleted account', async () => {
      const account = await server.signup();
      const victim = await loginAgain(account);
      await refusedWhileWaiting(victim, () =>
        server.send('DELETE', '/api/v1/auth/account', { password: account.password }, { session: account.token }),
      );
      expect(await sessionStatus(account.token)).toBe(401);
    });
  },
);
