import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none' });
});
afterAll(() => server.close());

describe('headers on every response', () => {
  it('echoes a valid x-request-id and generates one otherwise', async () => {
    const id = randomUUID();
    expect((await server.get('/api/v1/release', { headers: { 'x-request-id': id } })).headers.get('x-request-id')).toBe(
      id,
    );
    const replaced = await server.get('/api/v1/release', { headers: { 'x-request-id': '<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    for (const path of ['/livez', '/nope', '/docs', '/problems/not-found']) {
      expect((await server.get(path)).headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('sends security headers and no x-powered-by', async () => {
    const api = await server.get('/api/v1/release');
    expect(api.headers.get('x-powered-by')).toBeNull();
    expect(api.headers.get('x-content-type-options')).toBe('nosniff');
    expect(api.headers.get('x-frame-options')).toBe('DENY');
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    const problem = await server.get('/api/v1/nope');
    expect(problem.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    const page = await server.get('/docs');
    expect(page.headers.get('x-powered-by')).toBeNull();
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('says one thing about framing on every kind of page: X-Frame-Options agrees with frame-ancestors', async () => {
    const html = { headers: { accept: 'text/html' } };
    const expected: Record<string, string> = { "'none'": 'DENY', "'self'": 'SAMEORIGIN' };
    for (const [path, init] of [
      ['/api/v1/release', {}],
      ['/api/v1/nope', {}],
      ['/docs', {}],
      ['/problems/not-found', {}],
      ['/signin', html],
      ['/some/page', html],
    ] as const) {
      const response = await server.get(path, init);
      const ancestors = /frame-ancestors ([^;]+)/.exec(response.headers.get('content-security-policy') ?? '')?.[1];
      expect(ancestors, path).toBeDefined();
      expect(response.headers.get('x-frame-options'), path).toBe(expected[ancestors!]);
    }
  });

  it('allows other origins to read the public GETs only', async () => {
    const origin = { headers: { origin: 'https://example.org' } };
    expect((await server.get('/api/v1/release', origin)).headers.get('access-control-allow-origin')).toBe('*');
    expect((await server.get('/api/v1/facets', origin)).headers.get('access-control-allow-origin')).toBe('*');
    // SPEC §10: the health check too, with x-api-key allowed (a browser app checks its key)...
    expect((await server.get('/api/v1/health', origin)).headers.get('access-control-allow-origin')).toBe('*');
    const healthPreflight = await server.get('/api/v1/health', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://example.org',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(healthPreflight.status).toBe(204);
    expect(healthPreflight.headers.get('access-control-allow-headers')).toContain('x-api-key');
    // ...but nothing that takes a session, and never with credentials.
    for (const path of ['/api/v1/keys', '/api/v1/auth/session']) {
      expect((await server.get(path, origin)).headers.get('access-control-allow-origin')).toBeNull();
    }
    expect((await server.get('/api/v1/release', origin)).headers.get('access-control-allow-credentials')).toBeNull();
    const preflight = await server.get('/api/v1/release', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://example.org',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });
});
