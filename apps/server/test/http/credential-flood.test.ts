import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/kernel/crypto.js';
import { generateApiKey } from '../../src/keys/api-key-format.js';
import type { Storage } from '../../src/db/interface.js';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';

/**
 * A flood of distinct, well-formed (checksum-valid) keys from one address: each would cost a database
 * lookup, and none is cached. After the address has spent the anonymous quota on failures, its unknown
 * keys are refused before any lookup; a key that has proved good keeps working from the same address.
 */
const quota = 5;
let server: TestServer;
/** Lookups of keys other than the good one. */
let lookups = 0;
let goodHash = '';

beforeAll(async () => {
  server = await startTestServer({
    releases: 'none',
    config: { rateLimits: { windowMs: 60_000, anonymous: quota, apiKey: 1_000, session: 1_000, auth: 1_000 } },
    wrapStorage: (storage) =>
      Object.assign(Object.create(storage) as Storage, {
        keys: Object.assign(Object.create(storage.keys) as Storage['keys'], {
          findByHash: (hash: string) => {
            if (hash !== goodHash) lookups++;
            return storage.keys.findByHash(hash);
          },
        }),
      }),
  });
});
afterAll(() => server.close());

describe('a flood of bad API keys from one address', () => {
  it('stops reaching storage once the address is over its failure quota, while a good key keeps working', async () => {
    const good = await server.createKey();
    goodHash = hashSecret(good.key);
    const health = (key: string) => server.get('/api/v1/health', { headers: { 'x-api-key': key } });
    expect((await health(good.key)).status).toBe(200);
    lookups = 0;

    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await health(generateApiKey());
      statuses.push(response.status);
      if (i === 39) await expectProblem(response, 'rate-limited', 429);
      // The legitimate caller behind the same address is not locked out by the flood.
      if (i % 10 === 9) expect((await health(good.key)).status, `good key after ${i + 1} bad ones`).toBe(200);
    }
    expect(statuses.slice(0, quota)).toEqual(Array(quota).fill(401));
    expect(statuses.slice(quota + 1)).toEqual(Array(40 - quota - 1).fill(429));
    // Only the first `quota` bad keys were looked up (the limiter may let one more reach the lookup).
    expect(lookups).toBeGreaterThanOrEqual(quota);
    expect(lookups).toBeLessThanOrEqual(quota + 1);
  });
});
