import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/route-table.js';
import { generateApiKey } from '../../src/keys/api-key-format.js';
import { metricsListener } from '../../src/metrics/metrics-listener.js';
import { closedPort, startUnkeyStandin, type UnkeyStandin } from '../support/unkey-standin.js';
import {
  expectProblem,
  startTestServer,
  testDatabases,
  type TestServer,
  type TestServerOptions,
} from '../support/harness.js';

/**
 * SPEC §10's metrics, through real servers over HTTP: each kind of request moves its series. `main.ts` serves
 * the registry on METRICS_PORT (metrics/listener.test.ts); here the same listener is mounted on a port of the
 * test's own, beside the server.
 */

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text format, as far as these metrics use it (no escaped quotes in our label values). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[name!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** A scrape: the sum of a metric's samples whose labels include `labels`. */
type Reading = (name: string, labels?: Record<string, string>) => number;

interface Scraped {
  samples: Sample[];
  total: Reading;
}

/** The metrics listener over a test server's registry, on a loopback port of its own. */
async function metricsPortOf(
  server: TestServer,
): Promise<{ url: string; scrape: () => Promise<Scraped>; close(): Promise<void> }> {
  const registry = server.services.metrics.registry;
  if (!registry) throw new Error('metrics are off: give the test server config.metrics');
  const listener: Server = createServer(metricsListener(registry));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  return {
    url,
    async scrape() {
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(200);
      const samples = parseExposition(await response.text());
      return {
        samples,
        total: (name, labels = {}) =>
          samples
            .filter(
              (sample) =>
                sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
            )
            .reduce((sum, sample) => sum + sample.value, 0),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  };
}

/** Metrics on; where they would listen does not matter here (`main.ts` is not running). */
const metricsOn = { metrics: { host: '127.0.0.1', port: 9464 } };
const roomyLimits = { windowMs: 60_000, anonymous: 100_000, apiKey: 100_000, session: 100_000, auth: 100_000 };

async function withMetrics(options: TestServerOptions) {
  const server = await startTestServer({ ...options, config: { ...metricsOn, ...options.config } });
  return { server, port: await metricsPortOf(server) };
}

describe.each(testDatabases())('metrics on $database', ({ database, run }) => {
  const apiKeyLimit = 2;
  let server: TestServer;
  let port: Awaited<ReturnType<typeof metricsPortOf>>;

  beforeAll(async () => {
    if (!run) return;
    ({ server, port } = await withMetrics({
      database,
      config: { rateLimits: { ...roomyLimits, apiKey: apiKeyLimit } },
    }));
  });
  afterAll(async () => {
    if (!run) return;
    await port.close();
    await server.close();
  });

  it.runIf(run)('counts requests by contract route, method and status, with a latency histogram', async () => {
    const before = await port.scrape();
    expect((await server.get('/api/v1/release?limit=1')).status).toBe(200);
    expect((await server.get('/api/v1/release/rel_not_there')).status).toBe(404);
    expect((await server.get('/api/v1/release?limit=zero')).status).toBe(400);
    expect((await server.get('/no/such/page/rel_123?x=1')).status).toBe(404);
    expect((await server.send('DELETE', '/api/v1/facets')).status).toBe(405);
    const after = await port.scrape();

    const moved = (labels: Record<string, string>) =>
      after.total('releases_http_requests_total', labels) - before.total('releases_http_requests_total', labels);
    expect(moved({ route: '/api/v1/release', method: 'GET', status: '200' })).toBe(1);
    expect(moved({ route: '/api/v1/release', method: 'GET', status: '400' })).toBe(1);
    expect(moved({ route: '/api/v1/release/:id', method: 'GET', status: '404' })).toBe(1);
    expect(moved({ route: 'other', method: 'GET', status: '404' })).toBe(1);
    expect(moved({ route: 'other', method: 'DELETE', status: '405' })).toBe(1);

    const count = (scraped: Scraped) =>
      scraped.total('releases_http_request_duration_seconds_count', { route: '/api/v1/release', method: 'GET' });
    expect(count(after) - count(before)).toBe(2);
    // Buckets from half a millisecond up; every request is in +Inf.
    const buckets = after.samples.filter(
      (sample) =>
        sample.name === 'releases_http_request_duration_seconds_bucket' &&
        sample.labels.route === 'other' &&
        sample.labels.method === 'DELETE',
    );
    expect(buckets.map((sample) => sample.labels.le)).toEqual([
      ...['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5'],
      '+Inf',
    ]);
    expect(buckets.at(-1)?.value).toBe(1);

    // Route labels are the contract's path templates (or "other"): never a URL, an id or a query.
    const templates = new Set([...new RouteTable().entries.map(({ route }) => route.path), 'other']);
    const routes = new Set(
      after.samples.filter((sample) => sample.name === 'releases_http_requests_total').map((s) => s.labels.route),
    );
    for (const route of routes) expect(templates).toContain(route);
  });

  it.runIf(run)('counts answer-cache hits and misses, and the requests the cache answers', async () => {
    const url = '/api/v1/release?limit=3&sort=release_date';
    const before = await port.scrape();
    const hits = async () => (await port.scrape()).total('releases_answer_cache_lookups_total', { result: 'hit' });
    // Kept on a URL's second request, answered from memory from the third (once the catalogue's version is known).
    let sent = 0;
    await expect
      .poll(
        async () => {
          sent++;
          expect((await server.get(url)).status).toBe(200);
          return (await hits()) - before.total('releases_answer_cache_lookups_total', { result: 'hit' });
        },
        { timeout: 10_000, interval: 50 },
      )
      .toBeGreaterThanOrEqual(1);
    const after = await port.scrape();
    const lookups = (scraped: Scraped, result: string) =>
      scraped.total('releases_answer_cache_lookups_total', { result });
    expect(lookups(after, 'miss') - lookups(before, 'miss')).toBeGreaterThanOrEqual(1);
    expect(lookups(after, 'hit') - lookups(before, 'hit')).toBeGreaterThanOrEqual(1);
    // A request answered from memory is counted like any other.
    const requests = (scraped: Scraped) =>
      scraped.total('releases_http_requests_total', { route: '/api/v1/release', status: '200' });
    expect(requests(after) - requests(before)).toBe(sent);
  });

  it.runIf(run)('counts a 429 by its quota', async () => {
    const { key } = await server.createKey();
    const before = await port.scrape();
    const statuses: number[] = [];
    for (let i = 0; i <= apiKeyLimit; i++) {
      statuses.push((await server.get('/api/v1/release?limit=1', { headers: { 'x-api-key': key } })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const after = await port.scrape();
    const refusals = (scraped: Scraped, quota: string) =>
      scraped.total('releases_rate_limit_refusals_total', { quota });
    expect(refusals(after, 'api-key') - refusals(before, 'api-key')).toBe(1);
    expect(refusals(after, 'anonymous') - refusals(before, 'anonymous')).toBe(0);
  });

  it.runIf(run)('counts key verifications by result', async () => {
    const good = await server.createKey();
    const revoked = await server.createKey();
    await server.services.keys.revoke(revoked.id);
    const before = await port.scrape();
    const health = (key: string) => server.get('/api/v1/health', { headers: { 'x-api-key': key } });
    expect((await health(good.key)).status).toBe(200);
    await expectProblem(await health('rls_short'), 'unauthorized', 401);
    await expectProblem(await health(generateApiKey()), 'unauthorized', 401);
    await expectProblem(await health(revoked.key), 'unauthorized', 401);
    const after = await port.scrape();
    const moved = (result: string) =>
      after.total('releases_key_verifications_total', { result }) -
      before.total('releases_key_verifications_total', { result });
    expect({
      valid: moved('valid'),
      malformed: moved('malformed'),
      unknown: moved('unknown'),
      revoked: moved('revoked'),
    }).toEqual({ valid: 1, malformed: 1, unknown: 1, revoked: 1 });
    // The keys themselves are in no label.
    const text = JSON.stringify(after.samples);
    for (const key of [good.key, revoked.key, 'rls_short']) expect(text).not.toContain(key);
  });

  it.runIf(run)(
    'serves metrics on its own port only: the public port answers /metrics with a 404 problem',
    async () => {
      await expectProblem(await server.get('/metrics'), 'not-found', 404);
      const scraped = await fetch(`${port.url}/metrics`);
      expect(scraped.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await scraped.text();
      expect(text).toContain('# TYPE releases_http_requests_total counter');
      // Node's process metrics come along (CPU, memory, event loop lag, GC).
      for (const name of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(text).toContain(`\n${name} `);
      }
      expect(text).toMatch(/^releases_info\{version="\d+\.\d+\.\d+"\} 1$/m);
      expect((await fetch(`${port.url}/`)).status).toBe(404);
      expect((await fetch(`${port.url}/metrics/x`)).status).toBe(404);
      expect((await fetch(`${port.url}/metrics`, { method: 'POST' })).status).toBe(404);
    },
  );

  it.runIf(run)(
    database === 'postgres'
      ? 'reports the PostgreSQL pool: open, idle and waiting connections, and its size'
      : 'reports no pool on SQLite',
    async () => {
      const scraped = await port.scrape();
      const pool = scraped.samples.filter((sample) => sample.name === 'releases_db_pool_connections');
      if (database === 'sqlite') {
        expect(pool).toEqual([]);
        return;
      }
      expect(pool.map((sample) => sample.labels.state).sort()).toEqual(['idle', 'total', 'waiting']);
      expect(scraped.total('releases_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(scraped.total('releases_db_pool_connections', { state: 'waiting' })).toBe(0);
      expect(scraped.total('releases_db_pool_max_connections')).toBe(server.services.config.databasePoolSize);
    },
  );
});

describe('metrics of the failed-credential guard and the anonymous quota', () => {
  const quota = 3;
  let server: TestServer;
  let port: Awaited<ReturnType<typeof metricsPortOf>>;
  beforeAll(async () => {
    ({ server, port } = await withMetrics({
      releases: 'none',
      config: { rateLimits: { ...roomyLimits, anonymous: quota } },
    }));
  });
  afterAll(async () => {
    await port.close();
    await server.close();
  });

  it('counts each refusal under the quota that gave it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await server.get('/api/v1/health', { headers: { 'x-api-key': generateApiKey() } })).status);
    }
    // Failures spend the anonymous quota; past it, the guard refuses unknown keys before any lookup.
    expect(statuses.slice(0, quota)).toEqual([401, 401, 401]);
    expect(statuses.slice(quota + 1)).toEqual([429, 429, 429, 429]);
    const scraped = await port.scrape();
    const refusals = (quota: string) => scraped.total('releases_rate_limit_refusals_total', { quota });
    expect(refusals('failed-credentials')).toBeGreaterThanOrEqual(4);
    expect(refusals('anonymous') + refusals('failed-credentials')).toBe(statuses.filter((s) => s === 429).length);
  });
});

describe('metrics of the shared rate-limit store', () => {
  it('reports Redis unavailable (limits failing open) while it does not answer', async () => {
    const { server, port } = await withMetrics({
      releases: 'none',
      config: { redisUrl: `redis://127.0.0.1:${await closedPort()}` },
    });
    try {
      expect((await port.scrape()).total('releases_rate_limit_store_up')).toBe(0);
      expect((await server.get('/api/v1/release?limit=1')).status).toBe(200);
    } finally {
      await port.close();
      await server.close();
    }
  });

  it.runIf(Boolean(process.env.TEST_REDIS_URL))('reports Redis up while it answers', async () => {
    const { server, port } = await withMetrics({ releases: 'none', config: { redisUrl: process.env.TEST_REDIS_URL } });
    try {
      const scraped = await port.scrape();
      expect(scraped.samples.find((sample) => sample.name === 'releases_rate_limit_store_up')?.value).toBe(1);
    } finally {
      await port.close();
      await server.close();
    }
  });

  it('shows no store gauge when limits are counted in memory', async () => {
    const { server, port } = await withMetrics({ releases: 'none' });
    try {
      const scraped = await port.scrape();
      expect(scraped.samples.some((sample) => sample.name === 'releases_rate_limit_store_up')).toBe(false);
    } finally {
      await port.close();
      await server.close();
    }
  });
});

describe('metrics of Unkey calls', () => {
  let standin: UnkeyStandin;
  let server: TestServer;
  let port: Awaited<ReturnType<typeof metricsPortOf>>;
  beforeAll(async () => {
    standin = await startUnkeyStandin();
    ({ server, port } = await withMetrics({
      releases: 'none',
      config: {
        keyManager: 'unkey',
        keyCacheTtlMs: 0,
        unkey: { rootKey: standin.rootKey, apiId: standin.apiId, baseUrl: standin.url, timeoutMs: 500 },
      },
    }));
  });
  afterAll(async () => {
    await port.close();
    await server.close();
    await standin.close();
  });

  it('times each call by operation and outcome: answered, failed, out of time', async () => {
    const { key } = await server.createKey();
    const health = () => server.get('/api/v1/health', { headers: { 'x-api-key': key } });
    expect((await health()).status).toBe(200);
    standin.misbehave('keys.verifyKey', { kind: 'status', status: 500 });
    await expectProblem(await health(), 'service-unavailable', 503);
    standin.misbehave('keys.verifyKey', { kind: 'hang' });
    await expectProblem(await health(), 'service-unavailable', 503);
    standin.misbehave('keys.verifyKey', undefined);

    const scraped = await port.scrape();
    const calls = (operation: string, outcome: string) =>
      scraped.total('releases_unkey_request_duration_seconds_count', { operation, outcome });
    expect(calls('keys.createKey', 'ok')).toBe(1);
    expect(calls('keys.verifyKey', 'ok')).toBe(1);
    expect(calls('keys.verifyKey', 'error')).toBe(1);
    expect(calls('keys.verifyKey', 'timeout')).toBe(1);
    // The timed-out call took the whole deadline.
    const slow = scraped.samples.find(
      (sample) =>
        sample.name === 'releases_unkey_request_duration_seconds_bucket' &&
        sample.labels.outcome === 'timeout' &&
        sample.labels.le === '0.25',
    );
    expect(slow?.value).toBe(0);
    expect(scraped.total('releases_key_verifications_total', { result: 'valid' })).toBe(1);
    expect(scraped.total('releases_key_verifications_total', { result: 'unavailable' })).toBe(2);
  });
});
