import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import {
  expectProblem,
  startTestServer,
  type TestServer,
  openRedisCounters,
  type RedisCounters,
} from '../support/harness.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl)
  console.warn('Redis tests skipped: set TEST_REDIS_URL (for example redis://127.0.0.1:6379) to run them.');

describe.skipIf(!redisUrl)('rate limits shared through Redis', () => {
  const opened: Array<RedisCounters | TestServer> = [];
  afterAll(async () => {
    for (const thing of opened.reverse()) await ('counters' in thing ? thing.close() : thing.close());
  });

  it('two instances count against one quota', async () => {
    const prefix = `releases-test:${randomBytes(4).toString('hex')}:`;
    const limits = { windowMs: 60_000, anonymous: 3, apiKey: 100, session: 100, auth: 100 };
    const servers: TestServer[] = [];
    for (let i = 0; i < 2; i++) {
      const shared = await openRedisCounters(redisUrl!, createLogger('silent'), prefix);
      opened.push(shared);
      const server = await startTestServer({
        releases: 'none',
        config: { rateLimits: limits },
        counters: shared.counters,
      });
      opened.push(server);
      servers.push(server);
    }
    const [a, b] = servers as [TestServer, TestServer];
    expect((await a.get('/api/v1/release')).status).toBe(200);
    expect((await b.get('/api/v1/release')).status).toBe(200);
    const third = await a.get('/api/v1/release');
    expect(third.status).toBe(200);
    expect(third.headers.get('ratelimit')).toMatch(/^"anonymous"; r=0;/);
    await expectProblem(await b.get('/api/v1/release'), 'rate-limited', 429);
  });

  it('lets requests through, without hanging, when Redis stops answering', async () => {
    const shared = await openRedisCounters(
      redisUrl!,
      createLogger('silent'),
      `releases-test:${randomBytes(4).toString('hex')}:`,
    );
    const server = await startTestServer({ releases: 'none', counters: shared.counters });
    opened.push(server);
    await shared.close();
    const response = await server.get('/api/v1/release');
    expect(response.status).toBe(200);
  });
});
