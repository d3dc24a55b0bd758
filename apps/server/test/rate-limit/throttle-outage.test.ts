import { limits } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';
import { closedPort } from '../support/unkey-standin.js';

/**
 * While Redis does not answer, the per-account sign-in throttle counts in the instance's own memory instead of
 * switching off (issue 30 #4: 13 wrong passwords were 13 answers of 401). The general rate limits still fail
 * open (`redis-outage.test.ts`).
 */
describe('the sign-in throttle while Redis is unreachable', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      releases: 'none',
      config: { redisUrl: `redis://127.0.0.1:${await closedPort()}` },
    });
  });
  afterAll(() => server.close());

  it('throttles an account guessed at, here, after as many failures as with Redis', async () => {
    const account = await server.signup();
    const statuses: number[] = [];
    for (let i = 0; i < limits.signInThrottle.failures + 3; i++) {
      const answer = await server.send('POST', '/api/v1/auth/login', {
        email: account.email,
        password: 'a wrong guess' + i,
      });
      statuses.push(answer.status);
      if (answer.status === 429) await expectProblem(answer, 'rate-limited', 429);
    }
    expect(statuses.slice(0, limits.signInThrottle.failures)).toEqual(Array(limits.signInThrottle.failures).fill(401));
    expect(statuses.slice(limits.signInThrottle.failures)).toEqual([429, 429, 429]);
    // The general quotas failed open: the requests were not refused by them, and carry no quota headers.
    const listed = await server.get('/api/v1/release');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('ratelimit')).toBeNull();
  });
});
