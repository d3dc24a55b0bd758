import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none', config: { keyCacheTtlMs: 0 } });
});
afterAll(() => server.close());

const health = (key?: string) =>
  server.get('/api/v1/health', key === undefined ? {} : { headers: { 'x-api-key': key } });

describe('GET /api/v1/health', () => {
  it('answers the JSON string "OK" for a valid key', async () => {
    const { key } = await server.createKey();
    const response = await health(key);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toBe('"OK"');
  });

  it('stores only a hash of the key, and records when it was last used', async () => {
    const { id, key } = await server.createKey();
    await health(key);
    const stored = (await server.services.storage.keys.list()).find((k) => k.id === id)!;
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.keyHash).not.toContain(key.slice(4));
    expect(stored.displayStart).toBe(key.slice(0, 12));
    await expect
      .poll(async () => (await server.services.storage.keys.list()).find((k) => k.id === id)?.lastUsedAt)
      .not.toBeNull();
  });
});
