import { randomBytes } from 'node:crypto';
import { FacetsResponseSchema } from '@releases/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoEmail } from '../../src/first-run.js';
import { openStorage } from '../../src/db/index.js';
import { postgresSchema, sampleReleases, testPostgresUrl } from '../support/harness.js';
import { requireBuild, spawnServer, waitUntilListening, type ServerProcess } from '../support/process-harness.js';

if (!testPostgresUrl) {
  console.warn(
    'PostgreSQL first-run tests skipped: set TEST_DATABASE_URL (for example postgres://postgres@127.0.0.1:5432/test) to run them.',
  );
}

async function count(client: pg.Client, sql: string, parameters: unknown[] = []): Promise<number> {
  return Number((await client.query<{ n: string }>(sql, parameters)).rows[0]!.n);
}

/**
 * Two instances started at once on an empty PostgreSQL database (a deployment scaling to two from zero):
 * exactly one seeds the sample catalogue, the demo account and the demo key, and prints them; the other
 * starts normally and prints no secret.
 */
describe.skipIf(!testPostgresUrl)('first start of two instances on one empty PostgreSQL database', () => {
  let schema: Awaited<ReturnType<typeof postgresSchema>>;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    requireBuild();
    schema = await postgresSchema();
  });
  afterAll(async () => {
    for (const server of servers) await server.kill();
    await schema?.drop();
  });

  it('seeds once; both serve; only the seeder prints the demo login and key', async () => {
    // Migrated beforehand, so the race is the seeding itself (migrations have their own lock).
    const storage = await openStorage(schema.url);
    await storage.migrate();
    await storage.close();

    const name = `seedrace_${randomBytes(4).toString('hex')}`;
    const url = `${schema.url}&application_name=${name}`;
    const locker = new pg.Client({ connectionString: schema.url });
    const observer = new pg.Client({ connectionString: schema.url });
    await locker.connect();
    await observer.connect();
    try {
      // Reads of the catalogue go on; writes wait: both instances find it empty and start seeding at once.
      await locker.query('begin');
      await locker.query('lock table releases in exclusive mode');
      const env = { DATABASE_URL: url, NODE_ENV: 'development', LOG_LEVEL: 'warn', DATABASE_STATEMENT_TIMEOUT: '60s' };
      servers.push(await spawnServer(env), await spawnServer(env));
      await expect
        .poll(
          () =>
            count(
              observer,
              "select count(*) as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
              [name],
            ),
          { timeout: 30_000, interval: 100 },
        )
        .toBe(2);
      await locker.query('commit');

      for (const server of servers) await waitUntilListening(server);
      const printed = servers.map((server) => /rls_[0-9A-Za-z]{38}/.test(server.stderr()));
      expect(printed.sort()).toEqual([false, true]);
      const quiet = servers.find((server) => !/rls_/.test(server.stderr()))!;
      expect(quiet.stderr()).not.toMatch(/Demo login|password/i);

      const releases = await sampleReleases();
      expect(await count(observer, 'select count(*) as n from releases')).toBe(releases.length);
      expect(await count(observer, 'select count(*) as n from users where email = $1', [demoEmail])).toBe(1);
      expect(await count(observer, 'select count(*) as n from api_keys')).toBe(1);
      for (const server of servers) {
        const facets = FacetsResponseSchema.parse(await (await fetch(`${server.url}/api/v1/facets`)).json());
        const languages = facets.data.languages.reduce((sum, facet) => sum + facet.count, 0);
        expect(languages).toBe(
          releases.reduce((sum, release) => sum + new Set(release.languages.map((l) => l.toLowerCase())).size, 0),
        );
      }
    } finally {
      await locker.end().catch(() => undefined);
      await observer.end().catch(() => undefined);
    }
  });
});
