import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ParsedReleaseInput, Problem } from '@releases/contract';
import { ProblemSchema } from '@releases/contract';
import type { Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import pg from 'pg';
import { expect } from 'vitest';
import { createApp } from '../src/app.js';
import { readSampleCatalogue } from '../src/catalogue/sample.js';
import { systemClock, type Clock } from '../src/clock.js';
import { testConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { answerClientErrors } from '../src/problems.js';
import { openServices, type Services } from '../src/services.js';
import type { Storage } from '../src/storage/interface.js';

export interface TestServer {
  baseUrl: string;
  services: Services;
  databaseFile: string;
  /** Fetches a path of this server. */
  get(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  createKey(options?: { expiresAt?: Date | null; name?: string }): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  config?: Partial<Config>;
  /** Releases to load before the server starts; the sample catalogue by default. */
  releases?: ParsedReleaseInput[] | 'none';
  clock?: Clock;
  /** Wraps the real storage, to inject faults or count calls; everything (the key manager too) uses the wrapper. */
  wrapStorage?: (storage: Storage) => Storage;
  /** A shared rate-limit store (Redis) instead of the in-memory one. */
  rateLimitStore?: Store;
  /** Where the server logs (silent by default); tests that assert on logs pass their own. */
  logger?: Logger;
  /** SQLite (default) or the PostgreSQL server named by TEST_DATABASE_URL, in a schema of its own. */
  database?: 'sqlite' | 'postgres';
}

/** The PostgreSQL server for integration tests, when there is one. */
export const testPostgresUrl = process.env.TEST_DATABASE_URL;

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
  const httpServer: Server = createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const config = testConfig({
    databaseUrl: postgres ? postgres.url : `file:${databaseFile}`,
    publicUrl: baseUrl,
    rateLimits: { windowMs: 60_000, anonymous: 100_000, apiKey: 100_000, session: 100_000, auth: 100_000 },
    ...options.config,
  });
  const logger = options.logger ?? createLogger('silent');
  const clock = options.clock ?? systemClock;
  const services = await openServices(config, logger, {
    clock,
    usageFlushIntervalMs: 50,
    ...(options.wrapStorage ? { wrapStorage: options.wrapStorage } : {}),
  });
  const releases = options.releases ?? (await sampleReleases());
  if (releases !== 'none') await services.storage.catalogueWrites.upsertReleases(releases, new Date(clock.now()));
  const app = createApp({
    ...services,
    logger,
    ...(options.rateLimitStore ? { rateLimitStore: options.rateLimitStore } : {}),
  });
  httpServer.on('request', app);
  answerClientErrors(httpServer, baseUrl);

  return {
    baseUrl,
    services,
    databaseFile,
    get: (pathAndQuery, init) => fetch(`${baseUrl}${pathAndQuery}`, init),
    async createKey(keyOptions = {}) {
      const created = await services.keys.create({
        name: keyOptions.name ?? 'test',
        ownerId: null,
        expiresAt: keyOptions.expiresAt ?? null,
      });
      if (!created.created) throw new Error('the test key was refused');
      return { id: created.record.id, key: created.key };
    },
    async close() {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await services.close().catch(() => undefined);
      await postgres?.drop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
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
