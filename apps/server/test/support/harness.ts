import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ParsedReleaseInput, Problem } from '@releases/contract';
import { ProblemSchema } from '@releases/contract';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { DestinationStream, Logger } from 'pino';
import { expect } from 'vitest';
import { createApp } from '../../src/app.js';
import { readSampleCatalogue } from '../../src/catalogue/sample.js';
import { systemClock, type Clock } from '../../src/kernel/clock.js';
import { testConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { createNodeServer, serve } from '../../src/http/node-server.js';
import type { CounterStore } from '../../src/rate-limit/interface.js';
import { openSharedRedis, RedisCounterStore } from '../../src/rate-limit/redis-counter-store.js';
import {
  failureStoreWindowMs,
  turnStoreWindowMs,
  type SignInThrottleStores,
} from '../../src/rate-limit/sign-in-throttle.js';
import { composeServer, openServices, type ServerParts, type Services } from '../../src/services.js';
import type { Storage } from '../../src/db/interface.js';

export interface TestServer {
  baseUrl: string;
  services: Services;
  /** What the server's HTTP side is made of (admission, the answer cache...). */
  parts: ServerParts;
  databaseFile: string;
  /** Fetches a path of this server. */
  get(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  /** A key without an owner, made through the key manager; `lifetimeMs` from now, or forever. */
  createKey(options?: { lifetimeMs?: number | null; name?: string }): Promise<{ id: string; key: string }>;
  /** Sends JSON with the given method; `session` is sent as `Authorization: Bearer`. */
  send(
    method: string,
    pathAndQuery: string,
    body?: unknown,
    init?: { session?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Signs up a fresh account through the API; returns its session token and the cookie the server set. */
  signup(email?: string, password?: string): Promise<SignedUp>;
  /** Rows of a table, read straight from the database (both backends). */
  rows(table: string): Promise<Array<Record<string, unknown>>>;
  /** The database, as the harness knows it. */
  database: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

export interface SignedUp {
  email: string;
  password: string;
  token: string;
  userId: string;
  /** The `Set-Cookie` header of the signup response. */
  setCookie: string;
  /** `name=value`, ready for a `Cookie` header. */
  cookie: string;
}

let accountCounter = 0;
/** A fresh, valid email for each call. */
export function uniqueEmail(): string {
  return `user${++accountCounter}.${randomBytes(3).toString('hex')}@example.com`;
}
export const testPassword = 'correct horse battery staple';

export interface TestServerOptions {
  config?: Partial<Config>;
  /** Releases to load before the server starts; the sample catalogue by default. */
  releases?: ParsedReleaseInput[] | 'none';
  clock?: Clock;
  /** Wraps the real storage, to inject faults or count calls; everything (the key manager too) uses the wrapper. */
  wrapStorage?: (storage: Storage) => Storage;
  /** Deletes everyone's ended sessions this often, as the server does hourly; never by default. */
  sessionSweepIntervalMs?: number;
  /** Where quotas are counted (a Redis store of the test's own), instead of this process's memory. */
  counters?: CounterStore;
  /** Where the sign-in throttle counts (Redis stores of the test's own, shared by two servers). */
  throttleStores?: SignInThrottleStores;
  /** SQLite (default) or the PostgreSQL server named by TEST_DATABASE_URL, in a schema of its own. */
  database?: 'sqlite' | 'postgres';
  /** Where the server's log lines go, at `trace` level (default: nowhere). */
  logDestination?: DestinationStream;
  /** The built web app's folder (`apps/web/dist` by default). */
  webAppRoot?: string;
  /** The server's logger itself (silent by default), when a test needs its own level or destination. */
  logger?: Logger;
}

/** The PostgreSQL server for integration tests, when there is one. */
export const testPostgresUrl = process.env.TEST_DATABASE_URL;

/**
 * The backends a test runs on, for `describe.each`: SQLite always, PostgreSQL when TEST_DATABASE_URL is set
 * (and a line saying it was skipped otherwise).
 */
export function testDatabases(): Array<{ database: 'sqlite' | 'postgres'; run: boolean }> {
  if (!testPostgresUrl) {
    console.warn(
      'PostgreSQL tests skipped: set TEST_DATABASE_URL (for example postgres://postgres@127.0.0.1:5432/test) to run them.',
    );
  }
  return [
    { database: 'sqlite', run: true },
    { database: 'postgres', run: Boolean(testPostgresUrl) },
  ];
}

/** A fresh schema on the test PostgreSQL server; returns its connection URL and a function that drops it. */
export async function postgresSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!testPostgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testPostgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  // encodeURIComponent, not URLSearchParams: pg reads `+` literally, not as a space.
  const separator = testPostgresUrl.includes('?') ? '&' : '?';
  return {
    url: `${testPostgresUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    drop: async () => {
      const client = new pg.Client({ connectionString: testPostgresUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

let sample: ParsedReleaseInput[] | undefined;
export async function sampleReleases(): Promise<ParsedReleaseInput[]> {
  sample ??= await readSampleCatalogue();
  return sample;
}

/** A real server on a real SQLite file in a temporary folder, listening on a free loopback port. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const folder = mkdtempSync(path.join(tmpdir(), 'releases-test-'));
  const databaseFile = path.join(folder, 'releases.db');
  const postgres = options.database === 'postgres' ? await postgresSchema() : undefined;
  const httpServer: Server = createNodeServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const config = testConfig({
    databaseUrl: postgres ? postgres.url : `file:${databaseFile}`,
    publicUrl: baseUrl,
    rateLimits: { windowMs: 60_000, anonymous: 100_000, apiKey: 100_000, session: 100_000, auth: 100_000 },
    ...options.config,
  });
  const logger =
    options.logger ?? (options.logDestination ? createLogger('trace', options.logDestination) : createLogger('silent'));
  const clock = options.clock ?? systemClock;
  const services = await openServices(config, logger, {
    clock,
    usageFlushIntervalMs: 50,
    ...(options.sessionSweepIntervalMs === undefined ? {} : { sessionSweepIntervalMs: options.sessionSweepIntervalMs }),
    ...(options.wrapStorage ? { wrapStorage: options.wrapStorage } : {}),
  });
  const releases = options.releases ?? (await sampleReleases());
  if (releases !== 'none') await services.storage.catalogueWrites.upsertReleases(releases, new Date(clock.now()));
  const parts = await composeServer(services, logger, {
    ...(options.counters ? { counters: options.counters } : {}),
    ...(options.throttleStores ? { throttleStores: options.throttleStores } : {}),
  });
  serve(httpServer, {
    listener: createApp({
      ...services,
      ...parts,
      logger,
      ...(options.webAppRoot ? { webAppRoot: options.webAppRoot } : {}),
    }).listener,
    routes: parts.routes,
    publicUrl: baseUrl,
    logger,
    metrics: services.metrics,
  });

  const send: TestServer['send'] = (method, pathAndQuery, body, init = {}) =>
    fetch(`${baseUrl}${pathAndQuery}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.session ? { authorization: `Bearer ${init.session}` } : {}),
        ...init.headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  return {
    baseUrl,
    services,
    parts,
    databaseFile,
    database: postgres ? 'postgres' : 'sqlite',
    get: (pathAndQuery, init) => fetch(`${baseUrl}${pathAndQuery}`, init),
    send,
    async signup(email = uniqueEmail(), password = testPassword) {
      const response = await send('POST', '/api/v1/auth/signup', { email, password });
      if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { data: { user: { id: string }; session: { token: string } } };
      const setCookie = response.headers.get('set-cookie') ?? '';
      return {
        email,
        password,
        token: body.data.session.token,
        userId: body.data.user.id,
        setCookie,
        cookie: setCookie.split(';')[0] ?? '',
      };
    },
    async rows(table) {
      if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
      if (postgres) {
        const client = new pg.Client({ connectionString: config.databaseUrl });
        await client.connect();
        try {
          return (await client.query<Record<string, unknown>>(`select * from ${table}`)).rows;
        } finally {
          await client.end();
        }
      }
      const db = new BetterSqlite3(databaseFile, { readonly: true });
      try {
        return db.prepare(`select * from ${table}`).all() as Array<Record<string, unknown>>;
      } finally {
        db.close();
      }
    },
    async createKey(keyOptions = {}) {
      const created = await services.keys.create({
        name: keyOptions.name ?? 'test',
        ownerId: null,
        lifetimeMs: keyOptions.lifetimeMs ?? null,
      });
      if (!created.created) throw new Error('the test key was refused');
      return { id: created.record.id, key: created.key };
    },
    async close() {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await parts.close().catch(() => undefined);
      await services.close().catch(() => undefined);
      await postgres?.drop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** `secret` with its last character changed: a credential one typo away (never the same one by chance). */
export function mistyped(secret: string): string {
  return `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
}

/** Every log line the server writes, kept for inspection. */
export function logCapture(): { stream: Writable; text: () => string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => lines.join('') };
}

/** Asserts a response is a problem document of the given kind and status, and returns its body. */
export async function expectProblem(response: Response, kind: string, status: number): Promise<Problem> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = ProblemSchema.parse(await response.json());
  expect(body.type).toMatch(new RegExp(`/problems/${kind}$`));
  expect(body.status).toBe(status);
  expect(body.detail.length).toBeGreaterThan(0);
  // SPEC §3.4: `urn:uuid:<id>` for a UUID request id (every generated one), `urn:request:<id>` otherwise.
  const id = response.headers.get('x-request-id') ?? '';
  expect(body.instance).toBe(
    /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(id) ? `urn:uuid:${id}` : `urn:request:${id}`,
  );
  return body;
}

/** The releases a filter should return, computed independently of the server by a full scan. */
export function expectedIds(
  releases: ParsedReleaseInput[],
  filters: { vocaloid_banks?: string[]; genres?: string[]; languages?: string[] },
  sort: '-release_date' | 'release_date' = '-release_date',
): string[] {
  const matches = (values: string[], wanted: string[] | undefined) =>
    !wanted || wanted.length === 0 || values.some((v) => wanted.some((w) => w.toLowerCase() === v.toLowerCase()));
  const rows = releases.filter(
    (r) =>
      matches(r.vocaloid_banks, filters.vocaloid_banks) &&
      matches(r.genres, filters.genres) &&
      matches(r.languages, filters.languages),
  );
  rows.sort((a, b) =>
    a.release_date === b.release_date
      ? a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0
      : a.release_date < b.release_date
        ? -1
        : 1,
  );
  if (sort === '-release_date') rows.reverse();
  return rows.map((r) => r.id);
}

/** Quota counters in Redis under a prefix of their own, as `composeServer` makes them from `REDIS_URL`. */
export interface RedisCounters {
  counters: CounterStore;
  close(): Promise<void>;
}

export async function openRedisCounters(
  redisUrl: string,
  logger: Logger,
  prefix = `releases-test:${randomBytes(4).toString('hex')}:`,
): Promise<RedisCounters> {
  const redis = await openSharedRedis(redisUrl, logger);
  return { counters: new RedisCounterStore(redis, { prefix, windowMs: 60_000 }), close: () => redis.close() };
}

/** The sign-in throttle's stores in Redis under a prefix of their own, as `composeServer` makes them from `REDIS_URL`. */
export async function openRedisThrottleStores(
  redisUrl: string,
  logger: Logger,
): Promise<{ stores: SignInThrottleStores; close(): Promise<void> }> {
  const redis = await openSharedRedis(redisUrl, logger);
  const prefix = `releases-test:${randomBytes(4).toString('hex')}:`;
  return {
    stores: {
      failures: new RedisCounterStore(redis, { prefix: `${prefix}signin-failures:`, windowMs: failureStoreWindowMs }),
      turns: new RedisCounterStore(redis, { prefix: `${prefix}signin-turns:`, windowMs: turnStoreWindowMs }),
    },
    close: () => redis.close(),
  };
}
