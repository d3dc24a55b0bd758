import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, type SignedUp, type TestServer } from '../support/harness.js';
import { describeAuthMatrix } from '../support/auth-matrix.js';

describe.each(testDatabases())('who may do what ($database)', ({ database, run }) => {
  let server: TestServer;
  let alice: SignedUp;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database, releases: 'none' });
    alice = await server.signup();
  });
  afterAll(() => server?.close());

  it.runIf(run)('the health check takes only an API key, and says so to a session', async () => {
    for (const headers of [{ authorization: `Bearer ${alice.token}` }, { cookie: alice.cookie }]) {
      const response = await server.get('/api/v1/health', { headers });
      const problem = await expectProblem(response, 'unauthorized', 401);
      expect(problem.detail).toBe(
        'This endpoint takes an API key in the x-api-key header; a session is not accepted here.',
      );
    }
  });
});

describeAuthMatrix('health');
