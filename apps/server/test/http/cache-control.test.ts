import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

/**
 * Who may keep an answer (issue 30 #4): with `RELEASES_AUTH=required`, an answer to an API key's caller is
 * `private` (a shared cache must not hand it to another caller, who may have no key at all); sessions' answers
 * are `no-store`; anonymous answers under `optional` may be kept by anyone.
 */
describe('Cache-Control of the public reads', () => {
  let required: TestServer;
  let optional: TestServer;
  let key: string;
  beforeAll(async () => {
    required = await startTestServer({ config: { authMode: 'required' } });
    optional = await startTestServer();
    key = (await required.createKey()).key;
  });
  afterAll(async () => {
    await required.close();
    await optional.close();
  });

  it.each(['/api/v1/release?limit=2', '/api/v1/release/rel_lcupwdzrpff2jlr4', '/api/v1/facets'])(
    'under RELEASES_AUTH=required, %s to an API key is private, on both paths (fast and Express)',
    async (target) => {
      for (let i = 0; i < 3; i++) {
        // The first request and repeated ones (answered from memory), GET (the fast path) and HEAD (Express).
        for (const method of ['GET', 'HEAD']) {
          const response = await required.get(target, { method, headers: { 'x-api-key': key } });
          expect(response.status, `${method} ${target}`).toBe(200);
          expect(response.headers.get('cache-control'), `${method} ${target}`).toBe('private');
          await response.arrayBuffer();
        }
      }
    },
  );

  it('under optional auth an anonymous answer says nothing against shared caches; a session’s is no-store', async () => {
    const anonymous = await optional.get('/api/v1/release?limit=2');
    expect(anonymous.headers.get('cache-control')).toBeNull();
    const { token } = await optional.signup();
    const signedIn = await optional.get('/api/v1/release?limit=2', { headers: { authorization: `Bearer ${token}` } });
    expect(signedIn.headers.get('cache-control')).toBe('no-store');
    const keyed = await optional.get('/api/v1/release?limit=2', {
      headers: { 'x-api-key': (await optional.createKey()).key },
    });
    expect(keyed.headers.get('cache-control')).toBeNull();
  });
});
