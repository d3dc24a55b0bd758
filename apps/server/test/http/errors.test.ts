import { limits } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';

/**
 * What the server answers whatever the route: unknown paths, wrong methods, bodies and URLs it cannot read,
 * and failures inside it.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('errors outside the list', () => {
  it('404 problem for unknown routes, in and out of /api/v1', async () => {
    for (const path of ['/api/v1/nope', '/api/v2/release', '/nothing/here', '/api/v1/release/rel_x/extra']) {
      const problem = await expectProblem(await server.get(path), 'not-found', 404);
      expect(problem.title).toBe('Not found');
    }
  });

  it('405 with Allow for a wrong method', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await server.get('/api/v1/release', { method });
      await expectProblem(response, 'method-not-allowed', 405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
    const health = await server.get('/api/v1/health', { method: 'DELETE' });
    await expectProblem(health, 'method-not-allowed', 405);
  });

  it('413 for a body over 16 KB', async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(limits.maxJsonBodyBytes + 10) });
    const response = await server.get('/api/v1/auth/login', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    const problem = await expectProblem(response, 'payload-too-large', 413);
    expect(problem.title).toBe('Payload too large');
  });

  it('415 for a body that is not JSON', async () => {
    const response = await server.get('/api/v1/auth/login', {
      method: 'POST',
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await expectProblem(response, 'unsupported-media-type', 415);
  });

  it('400 for malformed JSON', async () => {
    const response = await server.get('/api/v1/auth/login', {
      method: 'POST',
      body: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    const problem = await expectProblem(response, 'invalid-request', 400);
    expect(problem.detail).toBe('The request body is not valid JSON.');
  });

  it('answers HEAD like GET, without a body', async () => {
    const head = await server.get('/api/v1/release', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('400 for a path that is not valid percent-encoding', async () => {
    const problem = await expectProblem(await server.get('/api/v1/release/%zz'), 'invalid-request', 400);
    expect(problem.detail).toBe('The URL is not valid percent-encoding.');
  });

  it('431 problem, not a bare status line, for headers over 16 KB', async () => {
    const response = await server.get(`/api/v1/release?genres=${'a'.repeat(20_000)}`);
    const problem = await expectProblem(response, 'headers-too-large', 431);
    expect(problem.detail).toMatch(/larger than this server accepts/);
  });
});

describe('failures inside the server', () => {
  it('500 with no internals when a route throws', async () => {
    const broken = await startTestServer({
      releases: 'none',
      wrapStorage: (storage) =>
        Object.assign(Object.create(storage) as typeof storage, {
          catalogue: Object.assign(Object.create(storage.catalogue) as typeof storage.catalogue, {
            getReleaseJson: async () => {
              throw new Error('SELECT secret_column FROM internals failed at /srv/app/db.ts:42');
            },
          }),
        }),
    });
    try {
      const response = await broken.get('/api/v1/release/rel_anything');
      const problem = await expectProblem(response, 'internal-error', 500);
      const text = JSON.stringify(problem);
      expect(text).not.toMatch(/secret_column|db\.ts|at \//);
      expect(problem.detail).toBe('The server failed to handle this request.');
    } finally {
      await broken.close();
    }
  });

  it('503 with Retry-After when the database does not answer', async () => {
    const own = await startTestServer({ releases: 'none' });
    const key = await own.createKey();
    try {
      await own.services.storage.close();
      for (const path of ['/api/v1/release', '/api/v1/facets', '/api/v1/release/rel_x']) {
        const response = await own.get(path);
        await expectProblem(response, 'service-unavailable', 503);
        expect(response.headers.get('retry-after')).toBe('5');
      }
      const health = await own.get('/api/v1/health', { headers: { 'x-api-key': key.key } });
      // The key was verified before (cache) or the key lookup itself fails: either way a 503, never a 200 or 500.
      await expectProblem(health, 'service-unavailable', 503);
      const ready = await own.get('/readyz');
      await expectProblem(ready, 'service-unavailable', 503);
      expect((await own.get('/livez')).status).toBe(200);
    } finally {
      await own.close().catch(() => undefined);
    }
  });
});
