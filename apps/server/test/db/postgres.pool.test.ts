import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSchema, startTestServer, testPostgresUrl, type TestServer } from '../support/harness.js';

if (!testPostgresUrl) {
  console.warn('PostgreSQL pool tests skipped: set TEST_DATABASE_URL to run them.');
}

describe.skipIf(!testPostgresUrl)('PostgreSQL: DATABASE_POOL_SIZE', () => {
  // The instance's connections are told apart from everyone else's by their application_name.
  const applicationName = `releases_pool_${randomBytes(4).toString('hex')}`;
  let schema: Awaited<ReturnType<typeof postgresSchema>>;
  let server: TestServer;
  let observer: pg.Client;

  beforeAll(async () => {
    schema = await postgresSchema();
    const url = `${schema.url}&application_name=${applicationName}`;
    server = await startTestServer({ config: { databaseUrl: url, databasePoolSize: 2 } });
    observer = new pg.Client({ connectionString: schema.url });
    await observer.connect();
  });
  afterAll(async () => {
    await server?.close();
    await observer?.end();
    await schema?.drop();
  });

  const connectionsOfTheInstance = async () =>
    Number(
      (
        await observer.query<{ count: string }>('select count(*) from pg_stat_activity where application_name = $1', [
          applicationName,
        ])
      ).rows[0]!.count,
    );

  it('bounds the connections one instance opens, however many requests wait', async () => {
    const locker = new pg.Client({ connectionString: schema.url });
    await locker.connect();
    try {
      await locker.query('begin');
      // Every catalogue read now waits with its connection held: the pool is all that limits them.
      await locker.query('lock table releases in access exclusive mode');
      const pending = Array.from({ length: 6 }, (_, i) =>
        server.get(`/api/v1/release?limit=${i + 1}`, { signal: AbortSignal.timeout(10_000) }),
      );
      let peak = 0;
      for (let i = 0; i < 10; i++) {
        await sleep(50);
        peak = Math.max(peak, await connectionsOfTheInstance());
      }
      expect(peak).toBe(2);
      await locker.query('rollback');
      const statuses = (await Promise.all(pending)).map((response) => response.status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await locker.end();
    }
  });
});
