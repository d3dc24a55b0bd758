import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ParsedReleaseInput } from '@releases/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.js';
import type { Storage } from '../../src/db/interface.js';
import {
  expectProblem,
  postgresSchema,
  sampleReleases,
  startTestServer,
  testPostgresUrl,
  type TestServer,
} from '../support/harness.js';
import { PausableProxy } from '../support/pg-proxy.js';
import { requireBuild, startServer } from '../support/process-harness.js';

if (!testPostgresUrl) {
  console.warn(
    'PostgreSQL outage tests skipped: set TEST_DATABASE_URL (for example postgres://postgres@127.0.0.1:5432/test) to run them.',
  );
}
const run = Boolean(testPostgresUrl);

/** `url` with one more query parameter. */
function withParameter(url: string, name: string, value: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Releases that carry exactly the tags of `template` (so their facet rows exist before the race). */
function releasesLike(template: ParsedReleaseInput, prefix: string, count: number): ParsedReleaseInput[] {
  return Array.from({ length: count }, (_, i) => ({
    ...template,
    id: `rel_${prefix}_${String(i).padStart(3, '0')}`,
    title: `${prefix} ${i}`,
  }));
}

/** Each request gets a bound: a hang shows up as an abort, not as a stuck test. */
const bounded = (): RequestInit => ({ signal: AbortSignal.timeout(10_000) });

describe.skipIf(!run)('PostgreSQL: concurrent imports', () => {
  it('keep facet counts exact when two imports touch the same values at once', async () => {
    const template = (await sampleReleases())[0]!;
    const schema = await postgresSchema();
    const opened: Storage[] = [];
    const locker = new pg.Client({ connectionString: schema.url });
    try {
      const setup = await openStorage(schema.url);
      opened.push(setup);
      await setup.migrate();
      await setup.catalogueWrites.upsertReleases([template], new Date());

      // Two importers (two instances, or the CLI twice), recognisable in pg_stat_activity.
      const name = `race_${randomBytes(4).toString('hex')}`;
      const importerUrl = withParameter(schema.url, 'application_name', name);
      const [a, b] = [
        await openStorage(importerUrl, { statementTimeoutMs: 30_000 }),
        await openStorage(importerUrl, { statementTimeoutMs: 30_000 }),
      ];
      opened.push(a, b);

      // Hold the facet rows, so that both imports are inside their transactions at once when they meet them.
      await locker.connect();
      await locker.query('begin');
      await locker.query('select * from facet_values for update');
      const imports = Promise.all([
        a.catalogueWrites.upsertReleases(releasesLike(template, 'a', 40), new Date()),
        b.catalogueWrites.upsertReleases(releasesLike(template, 'b', 30), new Date()),
      ]);
      // Watched from outside the locker's transaction (which would see one snapshot of pg_stat_activity).
      await expect
        .poll(
          () =>
            withClient(schema.url, async (observer) =>
              Number(
                (
                  await observer.query<{ n: string }>(
                    "select count(*) as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
                    [name],
                  )
                ).rows[0]!.n,
              ),
            ),
          { timeout: 15_000, interval: 50 },
        )
        .toBe(2);
      await locker.query('commit');
      await imports;

      const truth = await setup.catalogue.countReleases();
      expect(truth).toBe(71);
      const { total, ...facets } = await setup.catalogue.facets({
        filters: { vocaloid_banks: [], genres: [], languages: [] },
      });
      expect(total).toBe(truth);
      for (const [kind, values] of Object.entries(facets)) {
        for (const facet of values) expect(facet, kind).toEqual({ value: facet.value, count: truth });
      }
    } finally {
      await locker.end().catch(() => undefined);
      for (const storage of opened) await storage.close();
      await schema.drop();
    }
  });
});

describe.skipIf(!run)('PostgreSQL: a statement that cannot finish', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ database: 'postgres', config: { databaseStatementTimeoutMs: 500 } });
  });
  afterAll(() => server?.close());

  it('is cancelled by the statement timeout: a 503 with Retry-After, and the next one works', async () => {
    const id = (await sampleReleases())[0]!.id;
    await withClient(server.services.config.databaseUrl, async (locker) => {
      await locker.query('begin');
      // Nobody may read the catalogue while this is held (a migration, a VACUUM FULL, an operator's mistake).
      await locker.query('lock table releases in access exclusive mode');
      for (const path of ['/api/v1/release?limit=2', `/api/v1/release/${id}`]) {
        const response = await server.get(path, bounded());
        await expectProblem(response, 'service-unavailable', 503);
        expect(response.headers.get('retry-after')).toBe('5');
      }
      await locker.query('rollback');
    });
    expect((await server.get('/api/v1/release?limit=2', bounded())).status).toBe(200);
  });
});

describe.skipIf(!run)('PostgreSQL: the database goes away', () => {
  const database = `releases_outage_${randomBytes(4).toString('hex')}`;
  const url = new URL(testPostgresUrl ?? 'postgres://localhost/x');
  url.pathname = `/${database}`;
  const admin = (sql: string) => withClient(testPostgresUrl!, (client) => client.query(sql));
  let server: TestServer;

  beforeAll(async () => {
    await admin(`create database ${database}`);
    server = await startTestServer({ releases: 'none', config: { databaseUrl: url.toString() } });
  });
  afterAll(async () => {
    await server?.close();
    await admin(`drop database if exists ${database} with (force)`);
  });

  async function expectUnavailable(): Promise<void> {
    for (const path of ['/api/v1/release', '/api/v1/facets', '/readyz']) {
      const response = await server.get(path, bounded());
      await expectProblem(response, 'service-unavailable', 503);
      expect(response.headers.get('retry-after')).toBe('5');
    }
  }

  it('refusing connections (55000) is a 503, and the service recovers by itself', async () => {
    expect((await server.get('/api/v1/release', bounded())).status).toBe(200);
    await admin(`alter database ${database} with allow_connections false`);
    await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}'`);
    await expectUnavailable();
    await expectUnavailable();
    await admin(`alter database ${database} with allow_connections true`);
    await expect
      .poll(async () => (await server.get('/api/v1/release', bounded())).status, { timeout: 10_000 })
      .toBe(200);
  });

  it('a dropped database (3D000) is a 503, not a 500', async () => {
    await admin(`drop database ${database} with (force)`);
    // The page served a moment ago may be answered from memory until the instance's catalogue poll (every
    // second) fails; from then on every request meets the outage.
    await expect
      .poll(async () => (await server.get('/api/v1/release', bounded())).status, { timeout: 3_000, interval: 100 })
      .toBe(503);
    await expectUnavailable();
    await expectUnavailable();
  });
});

describe.skipIf(!run)('PostgreSQL: the database hangs (no answer at all)', () => {
  let proxy: PausableProxy;
  let schema: Awaited<ReturnType<typeof postgresSchema>>;
  beforeAll(async () => {
    proxy = await PausableProxy.start(testPostgresUrl!);
    schema = await postgresSchema();
  });
  afterAll(async () => {
    proxy?.resume();
    await proxy?.close();
    await schema?.drop();
  });

  it('requests are 503 within the statement timeout instead of hanging, and work again when it answers', async () => {
    const server = await startTestServer({
      config: { databaseUrl: proxy.route(schema.url), databaseStatementTimeoutMs: 1_000 },
    });
    try {
      expect((await server.get('/api/v1/release', bounded())).status).toBe(200);
      proxy.pause();
      for (const path of ['/api/v1/release', '/api/v1/facets', '/api/v1/release', '/readyz']) {
        await expectProblem(await server.get(path, bounded()), 'service-unavailable', 503);
      }
      proxy.resume();
      await expect
        .poll(async () => (await server.get('/api/v1/release', bounded())).status, { timeout: 15_000 })
        .toBe(200);
    } finally {
      proxy.resume();
      await server.close();
    }
  });

  it('SIGTERM exits within SHUTDOWN_TIMEOUT (and says so) while a request waits on the hung database', async () => {
    requireBuild();
    const running = await startServer({
      DATABASE_URL: proxy.route(schema.url),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT: '1s',
      // Longer than this test: only the shutdown bound can end the wait.
      DATABASE_STATEMENT_TIMEOUT: '120s',
    });
    try {
      expect((await fetch(`${running.url}/api/v1/release`, bounded())).status).toBe(200);
      proxy.pause();
      const stuck = fetch(`${running.url}/api/v1/release?limit=3`).catch(() => undefined);
      await sleep(200);
      running.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        running.exited,
        new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), 15_000))),
      ]);
      clearTimeout(timer);
      expect(code).not.toBe('still running');
      expect(running.stdout()).toMatch(/shutdown/i);
      expect(running.stdout()).toContain('"msg":"shutdown timed out');
      await stuck;
    } finally {
      proxy.resume();
      await running.kill();
    }
  });
});
