import { describe, expect, it } from 'vitest';
import { expectProblem, startTestServer } from '../support/harness.js';

describe('rate limits', () => {
  it('429 with Retry-After and draft-8 headers once the anonymous quota is used', async () => {
    const own = await startTestServer({
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 3, apiKey: 5, session: 5, auth: 5 } },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const ok = await own.get('/api/v1/release');
        expect(ok.status).toBe(200);
        expect(ok.headers.get('ratelimit-policy')).toMatch(/^"anonymous"; q=3; w=60/);
        expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^"anonymous"; r=${2 - i}; t=\\d+`));
      }
      const limited = await own.get('/api/v1/release');
      const problem = await expectProblem(limited, 'rate-limited', 429);
      expect(problem.title).toBe('Too many requests');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // An API key has its own, larger quota.
      const key = await own.createKey();
      const withKey = await own.get('/api/v1/release', { headers: { 'x-api-key': key.key } });
      expect(withKey.status).toBe(200);
      expect(withKey.headers.get('ratelimit-policy')).toMatch(/^"api-key"; q=5/);
    } finally {
      await own.close();
    }
  });

  it('counts failed credentials against the caller IP', async () => {
    const own = await startTestServer({
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 2, apiKey: 100, session: 100, auth: 100 } },
    });
    try {
      const bad = { headers: { 'x-api-key': 'rls_nope' } };
      expect((await own.get('/api/v1/health', bad)).status).toBe(401);
      expect((await own.get('/api/v1/health', bad)).status).toBe(401);
      await expectProblem(await own.get('/api/v1/health', bad), 'rate-limited', 429);
    } finally {
      await own.close();
    }
  });
  it('never limits the probes, which orchestrators poll', async () => {
    const own = await startTestServer({
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 2, apiKey: 100, session: 100, auth: 100 } },
    });
    try {
      for (let i = 0; i < 5; i++) {
        for (const probe of ['/livez', '/readyz']) {
          const response = await own.get(probe);
          expect(response.status).toBe(200);
          expect(response.headers.get('ratelimit')).toBeNull();
        }
      }
      // Everything else from that address is still counted.
      await own.get('/api/v1/release');
      await own.get('/api/v1/release');
      await expectProblem(await own.get('/api/v1/release'), 'rate-limited', 429);
    } finally {
      await own.close();
    }
  });
});
