import { AuthResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, testPassword, type TestServer } from '../support/harness.js';

/**
 * Writes that race the deletion of what they belong to are a 4xx, never a 500 (issue 30 #2): a session inserted
 * for an account deleted a moment before hits the foreign key, and that means "no such account" to the caller.
 */
describe.each(testDatabases())('writes racing an account’s deletion ($database)', ({ database, run }) => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    if (!run) return;
    first = await startTestServer({ database, releases: 'none' });
    // A second instance on the same database, as behind a load balancer.
    second = await startTestServer({
      database,
      releases: 'none',
      config: { databaseUrl: first.services.config.databaseUrl },
    });
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it.runIf(run)('a sign-in racing DELETE /api/v1/auth/account is a 200 or a 401, never a 500', async () => {
    for (let round = 0; round < 3; round++) {
      const account = await first.signup();
      const signIn = () => first.send('POST', '/api/v1/auth/login', { email: account.email, password: testPassword });
      const deletion = first.send(
        'DELETE',
        '/api/v1/auth/account',
        { password: testPassword },
        { session: account.token },
      );
      const answers = await Promise.all([deletion, ...Array.from({ length: 12 }, signIn)]);
      expect(answers[0].status).toBe(204);
      for (const answer of answers.slice(1)) {
        expect([200, 401], `sign-in answered ${answer.status}`).toContain(answer.status);
        if (answer.status === 401) await expectProblem(answer, 'unauthorized', 401);
        else AuthResponseSchema.parse(await answer.json());
      }
      // Nothing of the account outlives it: no session was left behind for a deleted user.
      const sessions = await first.rows('sessions');
      expect(sessions.filter((row) => row.user_id === account.userId)).toEqual([]);
    }
  });

  it.runIf(run)(
    'POST /api/v1/keys through a second instance, with a session of an account just deleted through the first, is a 401',
    async () => {
      const account = await first.signup();
      // The second instance has seen the session (and may reuse it for a second, SPEC §3.7)...
      expect((await second.get('/api/v1/keys', { headers: { authorization: `Bearer ${account.token}` } })).status).toBe(
        200,
      );
      // ...when the account is deleted through the first.
      const deleted = await first.send(
        'DELETE',
        '/api/v1/auth/account',
        { password: testPassword },
        {
          session: account.token,
        },
      );
      expect(deleted.status).toBe(204);
      const created = await second.send('POST', '/api/v1/keys', { name: 'too late' }, { session: account.token });
      await expectProblem(created, 'unauthorized', 401);
      expect((await first.rows('api_keys')).filter((row) => row.owner_id === account.userId)).toEqual([]);
    },
  );
});
