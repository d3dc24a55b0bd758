import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginxBinary, startLoadBalancer, type LoadBalancer } from '../../../../bench/load-balancer.mjs';
import { serverRoot } from '../../src/config.js';
import { postgresSchema, testPostgresUrl } from '../support/harness.js';
import {
  freePort,
  requireBuild,
  spawnServer,
  waitUntilListening,
  type ServerProcess,
} from '../support/process-harness.js';
import {
  prometheusBinary,
  prometheusVersion,
  startPrometheus,
  type Prometheus,
} from '../support/prometheus-harness.js';

/**
 * Two server processes (`node dist/main.js`, as docs/deploy.md runs them) on one PostgreSQL schema and one
 * Redis, behind a real nginx configured from docs/nginx.conf: what users who outgrow one process deploy.
 */
const redisUrl = process.env.TEST_REDIS_URL;
const nginx = nginxBinary();
const missing = [
  testPostgresUrl ? undefined : 'TEST_DATABASE_URL',
  redisUrl ? undefined : 'TEST_REDIS_URL',
  nginx ? undefined : 'nginx (apt-get install -y nginx-light)',
].filter(Boolean);
if (missing.length > 0) console.warn(`Multi-instance tests skipped: they need ${missing.join(', ')}.`);
// Prometheus watches the instances in one test; like nginx, it is run from Debian's package (CI installs it).
const prometheus = prometheusBinary();
if (missing.length === 0 && !prometheus) {
  console.warn('Multi-instance metrics test skipped: it needs prometheus (RUNLEVEL=1 apt-get install -y prometheus).');
}

const cli = path.join(serverRoot, 'dist', 'cli', 'main.js');
const deployGuide = path.join(serverRoot, '..', '..', 'docs', 'deploy.md');
// Low enough to reach in a test; the API-key one above the polls of the revocation test.
const limits = { anonymous: 5, apiKey: 150 };
const password = 'a long enough password';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A loopback address of its own: every caller here is a different client IP as far as nginx can tell. */
const randomLoopback = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

/** One HTTP request from `from` (a local address), on its own connection, bounded in time. */
function send(
  url: string,
  {
    method = 'GET',
    headers = {},
    body,
    from = randomLoopback(),
  }: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        localAddress: from,
        agent: false,
        timeout: 10_000,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within 10 s: ${method} ${url}`)));
    req.on('error', reject);
    req.end(payload);
  });
}

const json = <T>(reply: Reply) => JSON.parse(reply.body) as T;

/** What an answer says, without the moment it was computed (`generated_at`). */
function content(reply: Reply): unknown {
  const body = json<{ data?: Record<string, unknown> }>(reply);
  if (body.data) delete body.data.generated_at;
  return body;
}

/** Polls until `check` holds; fails with the last value after `withinMs`. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, withinMs: number): Promise<number> {
  const started = Date.now();
  let last: T;
  do {
    last = await read();
    if (check(last)) return Date.now() - started;
    await sleep(100);
  } while (Date.now() - started < withinMs);
  throw new Error(`not within ${withinMs} ms; last: ${JSON.stringify(last)}`);
}

describe.skipIf(missing.length > 0)('several instances behind nginx (PostgreSQL + Redis)', () => {
  let schema: Awaited<ReturnType<typeof postgresSchema>>;
  let balancer: LoadBalancer;
  let publicUrl: string;
  let env: Record<string, string>;
  let monitor: Prometheus | undefined;
  const instances: ServerProcess[] = [];
  const ports: number[] = [];
  /** Each instance's METRICS_PORT, which Prometheus scrapes. */
  const metricsPorts: number[] = [];

  const startInstance = async (index: number) => {
    const instance = await spawnServer({
      ...env,
      PORT: String(ports[index]),
      METRICS_PORT: String(metricsPorts[index]),
    });
    instances[index] = instance;
    await waitUntilListening(instance);
    return instance;
  };
  const upstreamsSeen = () => new Set(balancer.accessLog().map((line) => /upstream=(\S+)/.exec(line)?.[1]));

  beforeAll(async () => {
    requireBuild();
    schema = await postgresSchema();
    const balancerPort = await freePort();
    publicUrl = `http://127.0.0.1:${balancerPort}`;
    env = {
      NODE_ENV: 'production',
      DATABASE_URL: schema.url,
      REDIS_URL: redisUrl!,
      // Shared by every instance: a cursor from one is valid on the other.
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      PUBLIC_URL: publicUrl,
      // nginx connects from 127.0.0.1 and sets X-Forwarded-For to the client's address.
      TRUST_PROXY: '127.0.0.1',
      ALLOW_SIGNUP: 'true',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ANONYMOUS: String(limits.anonymous),
      RATE_LIMIT_API_KEY: String(limits.apiKey),
    };
    // Migrations are a step of their own (docs/deploy.md), before any instance starts; then the catalogue.
    const run = (...args: string[]) =>
      execFileSync(process.execPath, [cli, ...args], { env: { ...process.env, ...env } });
    run('migrate');
    run('import', path.join(serverRoot, 'data', 'sample-catalogue.json'));
    ports.push(await freePort(), await freePort());
    metricsPorts.push(await freePort(), await freePort());
    await Promise.all([startInstance(0), startInstance(1)]);
    balancer = await startLoadBalancer({ port: balancerPort, upstreams: ports.map((port) => `127.0.0.1:${port}`) });
    if (prometheus) {
      monitor = await startPrometheus({ targets: metricsPorts.map((port) => `127.0.0.1:${port}`) });
      console.info(
        `Multi-instance test: ${prometheusVersion(prometheus)} (${prometheus}) scrapes both instances' metrics ports every second, API at ${monitor.url}`,
      );
    }
  }, 120_000);

  afterAll(async () => {
    await monitor?.stop();
    await balancer?.stop();
    for (const instance of instances) await instance?.kill();
    await schema?.drop();
  });

  const direct = (index: number, pathAndQuery: string, init?: Parameters<typeof send>[1]) =>
    send(`http://127.0.0.1:${ports[index]}${pathAndQuery}`, init);
  const through = (pathAndQuery: string, init?: Parameters<typeof send>[1]) =>
    send(`${publicUrl}${pathAndQuery}`, init);

  it('answers identically whichever instance answers, cursors included', async () => {
    for (const query of ['/api/v1/release?limit=3', '/api/v1/release?vocaloid_banks=GUMI&limit=2', '/api/v1/facets']) {
      const [a, b] = await Promise.all([direct(0, query), direct(1, query)]);
      expect(a.status, a.body).toBe(200);
      expect(content(b)).toEqual(content(a));
    }
    const first = json<{ data: { pagination: string } }>(await direct(0, '/api/v1/release?limit=3'));
    const next = `/api/v1/release?limit=3&cursor=${encodeURIComponent(first.data.pagination)}`;
    const [a, b] = await Promise.all([direct(0, next), direct(1, next)]);
    expect(a.status, a.body).toBe(200);
    expect(content(b)).toEqual(content(a));

    const before = balancer.accessLog().length;
    const replies = await Promise.all(Array.from({ length: 6 }, () => through('/api/v1/release?limit=3')));
    for (const reply of replies) expect(content(reply)).toEqual(content(replies[0]!));
    // Each line is written after its response has gone: wait for all six.
    await expect.poll(() => balancer.accessLog().length - before, { timeout: 2_000 }).toBeGreaterThanOrEqual(6);
    const answeredBy = new Set(
      balancer
        .accessLog()
        .slice(before)
        .map((line) => /upstream=(\S+)/.exec(line)?.[1]),
    );
    expect(answeredBy).toEqual(new Set(ports.map((port) => `127.0.0.1:${port}`)));
  });

  it.runIf(prometheus)(
    "Prometheus scrapes both instances' metrics ports and shows, through its query API, what each one served",
    async () => {
      // A route no other test here asks for, so the counts are this test's alone.
      const route = '/api/v1/openapi.json';
      const before = balancer.accessLog().length;
      const sent = 12;
      for (let i = 0; i < sent; i++) expect((await through(route)).status).toBe(200);
      await expect.poll(() => balancer.accessLog().length - before, { timeout: 2_000 }).toBeGreaterThanOrEqual(sent);
      // nginx's access log says which instance answered each request.
      const served = new Map<string, number>();
      for (const line of balancer.accessLog().slice(before)) {
        const upstream = /upstream=(\S+)/.exec(line)?.[1];
        if (upstream && line.includes(`"GET ${route} `)) served.set(upstream, (served.get(upstream) ?? 0) + 1);
      }
      // Prometheus' `instance` is the metrics port it scraped; each maps to one instance's public port.
      const expected = Object.fromEntries(
        ports.map((port, index) => [`127.0.0.1:${metricsPorts[index]}`, served.get(`127.0.0.1:${port}`) ?? 0]),
      );
      expect(Object.values(expected).reduce((sum, count) => sum + count, 0)).toBe(sent);
      for (const count of Object.values(expected)) expect(count).toBeGreaterThan(0);

      const byInstance = async (promql: string) =>
        Object.fromEntries(
          (await monitor!.query(promql)).map((sample): [string, number] => [
            sample.metric.instance ?? '(none)',
            Number(sample.value[1]),
          ]),
        );
      // Scraped every second: the counts arrive within a few scrapes.
      await expect
        .poll(() => byInstance(`sum by (instance) (releases_http_requests_total{job="releases",route="${route}"})`), {
          timeout: 15_000,
          interval: 250,
        })
        .toEqual(expected);
      expect(await byInstance('up{job="releases"}')).toEqual(
        Object.fromEntries(metricsPorts.map((port) => [`127.0.0.1:${port}`, 1])),
      );
      // Both instances share one pool gauge name, each with its own connections.
      expect(Object.keys(await byInstance('releases_db_pool_connections{state="total"}')).sort()).toEqual(
        metricsPorts.map((port) => `127.0.0.1:${port}`).sort(),
      );

      // The queries docs/deploy.md gives operators, as written there: each is valid, and they see this traffic.
      const documented = [...readFileSync(deployGuide, 'utf8').matchAll(/```promql\n\s*(.+?)\n\s*```/g)].map(
        (match) => match[1]!,
      );
      expect(documented).toHaveLength(6);
      const answers = await Promise.all(documented.map((promql) => monitor!.query(promql)));
      // A rate needs two scrapes of its series; this route's is seconds old.
      await expect
        .poll(async () => (await monitor!.query(documented[0]!)).map((sample) => sample.metric.route), {
          timeout: 10_000,
          interval: 250,
        })
        .toContain(route);
      const saturation = answers[5]!.map((sample) => Number(sample.value[1]));
      expect(saturation).toHaveLength(2);
      for (const share of saturation) expect(share).toBeGreaterThanOrEqual(0);
      for (const share of saturation) expect(share).toBeLessThanOrEqual(1);
    },
    30_000,
  );

  it("passes the instances' compressed answers through nginx as they are", async () => {
    for (let i = 0; i < 3; i++) {
      const { headers, bytes } = await new Promise<{ headers: Record<string, unknown>; bytes: Buffer }>(
        (resolve, reject) => {
          request(`${publicUrl}/api/v1/release?limit=50`, { headers: { 'accept-encoding': 'br' } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
          })
            .on('error', reject)
            .end();
        },
      );
      expect(headers['content-encoding']).toBe('br');
      expect(String(headers.vary)).toMatch(/Accept-Encoding/);
      const page = JSON.parse(brotliDecompressSync(bytes).toString()) as { data: { releases: unknown[] } };
      expect(page.data.releases).toHaveLength(50);
    }
  });

  it('builds Link and problem URIs from PUBLIC_URL, and echoes the balancer request id', async () => {
    const page = await through('/api/v1/release?limit=2');
    expect(page.headers.link).toMatch(new RegExp(`^<${publicUrl}/api/v1/release\\?`));
    const requestId = page.headers['x-request-id'] as string;
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    // nginx writes its access log line after the response has gone: wait for it rather than race it.
    await expect
      .poll(() => balancer.accessLog().some((line) => line.endsWith(`request_id=${requestId}`)), { timeout: 2_000 })
      .toBe(true);

    const missingRelease = await through('/api/v1/release/rel_nothing_here');
    expect(missingRelease.status).toBe(404);
    const problem = json<{ type: string; instance: string }>(missingRelease);
    expect(problem.type).toBe(`${publicUrl}/problems/not-found`);
    expect(problem.instance).toBe(`urn:request:${missingRelease.headers['x-request-id'] as string}`);
  });

  it('a session and a key made through one instance work on the other; a revoked key is refused by both within 5 s', async () => {
    const email = `multi-${randomBytes(4).toString('hex')}@example.com`;
    const signup = await direct(0, '/api/v1/auth/signup', { method: 'POST', body: { email, password } });
    expect(signup.status, signup.body).toBe(201);
    const session = {
      authorization: `Bearer ${json<{ data: { session: { token: string } } }>(signup).data.session.token}`,
    };
    expect((await direct(1, '/api/v1/auth/session', { headers: session })).status).toBe(200);

    const created = await direct(1, '/api/v1/keys', { method: 'POST', headers: session, body: { name: 'across' } });
    expect(created.status, created.body).toBe(201);
    const { id, key } = json<{ data: { id: string; key: string } }>(created).data;
    for (const index of [0, 1]) {
      expect((await direct(index, '/api/v1/health', { headers: { 'x-api-key': key } })).status).toBe(200);
    }

    const revokedAt = Date.now();
    expect((await direct(0, `/api/v1/keys/${id}`, { method: 'DELETE', headers: session })).status).toBe(200);
    // The instance that revoked it forgets it at once; the other may have it cached for KEY_CACHE_TTL (5 s).
    expect((await direct(0, '/api/v1/health', { headers: { 'x-api-key': key } })).status).toBe(401);
    await sleep(Math.max(0, revokedAt + 5_000 - Date.now()));
    for (const index of [1, 0]) {
      expect((await direct(index, '/api/v1/health', { headers: { 'x-api-key': key } })).status).toBe(401);
    }
  });

  it('the API-key rate limit is shared: the sum over both instances is limited', async () => {
    const email = `limit-${randomBytes(4).toString('hex')}@example.com`;
    const signup = await direct(0, '/api/v1/auth/signup', { method: 'POST', body: { email, password } });
    const session = {
      authorization: `Bearer ${json<{ data: { session: { token: string } } }>(signup).data.session.token}`,
    };
    const created = await direct(0, '/api/v1/keys', { method: 'POST', headers: session, body: { name: 'limited' } });
    const { key } = json<{ data: { key: string } }>(created).data;
    const statuses: number[] = [];
    for (let i = 0; i < limits.apiKey; i++) {
      statuses.push((await direct(i % 2, '/api/v1/release?limit=1', { headers: { 'x-api-key': key } })).status);
    }
    expect(statuses).toEqual(Array.from({ length: limits.apiKey }, () => 200));
    for (const index of [0, 1]) {
      const refused = await direct(index, '/api/v1/release?limit=1', { headers: { 'x-api-key': key } });
      expect(refused.status).toBe(429);
      expect(json<{ type: string }>(refused).type).toBe(`${publicUrl}/problems/rate-limited`);
    }
  });

  it('the anonymous limit is per client address, as nginx reports it; a forged X-Forwarded-For changes nothing', async () => {
    const client = randomLoopback();
    const statuses: number[] = [];
    for (let i = 0; i < limits.anonymous; i++) {
      // Forged headers would give every request a fresh quota if the instances believed them.
      const forged = { 'x-forwarded-for': `203.0.113.${i + 1}` };
      statuses.push((await through('/api/v1/release?limit=1', { from: client, headers: forged })).status);
    }
    expect(statuses).toEqual(Array.from({ length: limits.anonymous }, () => 200));
    const refused = await through('/api/v1/release?limit=1', {
      from: client,
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    expect(refused.status).toBe(429);
    // Both instances answered this client, and the count was one.
    expect((await through('/api/v1/release?limit=1', { from: client })).status).toBe(429);
    expect((await through('/api/v1/release?limit=1', { from: randomLoopback() })).status).toBe(200);
  });

  it('an import through another process is visible on both instances within 5 s', async () => {
    // Both instances have the list and facets cached before the import.
    for (const index of [0, 1]) {
      await direct(index, '/api/v1/release?limit=1');
      await direct(index, '/api/v1/facets');
    }
    const id = `rel_multi_${randomBytes(3).toString('hex')}`;
    const release = {
      id,
      title: 'Across Instances',
      artist: 'Test Producer',
      release_date: '2099-01-01',
      release_type: 'single',
      vocaloid_banks: ['Multi Instance Bank'],
      genres: ['Pop'],
      languages: ['ja'],
      track_count: 1,
      cover_url: null,
      links: [],
    };
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'releases-multi-')), 'one.json');
    writeFileSync(file, JSON.stringify([release]));
    execFileSync(process.execPath, [cli, 'import', file], { env: { ...process.env, ...env } });
    for (const index of [0, 1]) {
      await eventually(
        async () =>
          json<{ data: { releases: Array<{ id: string }> } }>(await direct(index, '/api/v1/release?limit=1')).data
            .releases[0]?.id,
        (first) => first === id,
        5_000,
      );
      await eventually(
        async () => (await direct(index, '/api/v1/facets')).body,
        (body) => body.includes('Multi Instance Bank'),
        5_000,
      );
    }
  });

  /** Requests through nginx, `concurrency` at a time, until `done()`: every status, and every error. */
  async function underLoad(
    work: () => Promise<void>,
    concurrency = 4,
  ): Promise<{ statuses: Map<number, number>; errors: string[] }> {
    const statuses = new Map<number, number>();
    const errors: string[] = [];
    let running = true;
    const worker = async () => {
      for (let i = 0; running; i++) {
        try {
          // Each request from a fresh address: the anonymous limit (5 a minute) never applies.
          const reply = await through(`/api/v1/release?limit=${1 + (i % 20)}`);
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        } catch (error) {
          errors.push(String(error));
        }
      }
    };
    const workers = Array.from({ length: concurrency }, worker);
    try {
      await work();
    } finally {
      running = false;
      await Promise.all(workers);
    }
    return { statuses, errors };
  }

  it.each([
    ['SIGTERM (a deploy: it drains)', 'SIGTERM' as const, 0],
    ['SIGKILL (a crash)', 'SIGKILL' as const, 1],
  ])(
    'loses no request nginx can retry when one instance stops with %s, and it rejoins on restart',
    async (_name, signal, index) => {
      const { statuses, errors } = await underLoad(async () => {
        await sleep(300);
        const stopping = instances[index]!;
        stopping.child.kill(signal);
        await stopping.exited;
        await sleep(500);
        await startInstance(index);
        await sleep(300);
      });
      expect(errors).toEqual([]);
      expect([...statuses.keys()]).toEqual([200]);
      expect(statuses.get(200)).toBeGreaterThan(20);

      // Back in the rotation: nginx sends it requests again.
      const restarted = `127.0.0.1:${ports[index]}`;
      const before = balancer.accessLog().length;
      await eventually(
        async () => {
          await through('/api/v1/release?limit=2');
          return balancer
            .accessLog()
            .slice(before)
            .some((line) => line.includes(`upstream=${restarted} `));
        },
        (seen) => seen,
        10_000,
      );
      expect(upstreamsSeen().has(restarted)).toBe(true);
    },
    60_000,
  );
});
