import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';

/**
 * Orchestrators probe /livez and /readyz from one address (a node, a load balancer), every few seconds, for
 * every instance; with limits shared through Redis those probes would spend the anonymous quota of that
 * address and take healthy instances out of rotation. Probes are not API calls: never counted, never limited.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    releases: 'none',
    config: { rateLimits: { windowMs: 60_000, anonymous: 2, apiKey: 100, session: 100, auth: 100 } },
  });
});
afterAll(() => server.close());

describe('health probes and the rate limiter', () => {
  it('probes are neither counted nor refused; API calls from the same address still are', async () => {
    for (let i = 0; i < 5; i++) {
      for (const path of ['/livez', '/readyz']) {
        const response = await server.get(path);
        expect(response.status, `${path} #${i + 1}`).toBe(200);
        expect(response.headers.get('ratelimit'), path).toBeNull();
      }
    }
    expect((await server.get('/api/v1/release')).status).toBe(200);
    expect((await server.get('/api/v1/release')).status).toBe(200);
    await expectProblem(await server.get('/api/v1/release'), 'rate-limited', 429);
    expect((await server.get('/readyz')).status).toBe(200);
  });

  it('the OpenAPI document promises no quota headers on the probes', async () => {
    // Its own server: the one above has spent its anonymous quota.
    const documented = await startTestServer({ releases: 'none' });
    const document = (await (await documented.get('/api/v1/openapi.json')).json()) as {
      paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }>;
    };
    for (const path of ['/livez', '/readyz']) {
      for (const [status, response] of Object.entries(document.paths[path]!.get.responses)) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${path} ${status}`).not.toContain('RateLimit');
        expect(headers, `${path} ${status}`).not.toContain('RateLimit-Policy');
        expect(headers, `${path} ${status}`).toContain('x-request-id');
      }
    }
    await documented.close();
  });
});
