import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none' });
});
afterAll(() => server.close());

describe('probes, docs and problem pages', () => {
  it('livez and readyz answer "OK" with no data', async () => {
    for (const path of ['/livez', '/readyz']) {
      const response = await server.get(path);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('"OK"');
    }
  });
});
