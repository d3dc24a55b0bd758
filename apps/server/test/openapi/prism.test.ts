import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { limits, ReleaseListResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleReleases, startTestServer, testPassword, type TestServer } from '../support/harness.js';

/**
 * Prism, Stoplight's OpenAPI validator, as a validating proxy in front of the server, reading the document the
 * server serves. A stranger who puts it (or any validator of the document) between their client and us must
 * never see a request refused that the server takes: every request below is taken by the server, and Prism
 * must find nothing wrong with it, nor with the server's answer (its `sl-violations` header lists what it
 * finds in either; nothing is blocked).
 */

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const prismBin = path.join(serverRoot, 'node_modules', '.bin', 'prism');

interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

let server: TestServer;
let prism: ChildProcess;
let prismUrl: string;
let folder: string;
let prismLog = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

beforeAll(async () => {
  server = await startTestServer({ releases: await sampleReleases() });
  folder = mkdtempSync(path.join(tmpdir(), 'releases-prism-'));
  const file = path.join(folder, 'openapi.json');
  writeFileSync(file, await (await server.get('/api/v1/openapi.json')).text());
  const port = await freePort();
  prismUrl = `http://127.0.0.1:${port}`;
  prism = spawn(prismBin, ['proxy', file, server.baseUrl, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listening = new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      prismLog += chunk.toString();
      if (prismLog.includes('Prism is listening')) resolve();
    };
    prism.stdout?.on('data', read);
    prism.stderr?.on('data', read);
    prism.once('exit', (code) => reject(new Error(`prism exited (${code}):\n${prismLog}`)));
  });
  await listening;
}, 60_000);

afterAll(async () => {
  if (prism && prism.exitCode === null) {
    const exited = new Promise((resolve) => prism.once('exit', resolve));
    prism.kill('SIGTERM');
    await exited;
  }
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

interface Call {
  method?: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The same request sent to the server directly and through Prism: the server's status, Prism's findings. */
async function throughPrism(call: Call): Promise<{ direct: number; proxied: number; violations: Violation[] }> {
  const init = (): RequestInit => ({
    method: call.method ?? 'GET',
    headers: { ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...call.headers },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  const direct = await fetch(`${server.baseUrl}${call.path}`, init());
  await direct.arrayBuffer();
  const proxied = await fetch(`${prismUrl}${call.path}`, init());
  await proxied.arrayBuffer();
  const header = proxied.headers.get('sl-violations');
  return {
    direct: direct.status,
    proxied: proxied.status,
    violations: header ? (JSON.parse(header) as Violation[]) : [],
  };
}

const requestViolations = (violations: Violation[]) =>
  violations.filter((v) => v.location[0] === 'request' && v.severity === 'Error');

const padded = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(limits.maxFilterValueLength - 2)}`,
  );

describe('Prism, validating against the served document, accepts every request the server takes', () => {
  it('the release list with its filters as people write them, and every other parameter', async () => {
    const page = ReleaseListResponseSchema.parse(await (await server.get('/api/v1/release?limit=2')).json());
    const [first] = page.data.releases;
    const longest = padded(limits.maxFilterValues).join(', ');
    expect(longest.length).toBeLessThanOrEqual(limits.maxFilterParameterLength);
    const queries = [
      '',
      'genres=rock,electropop',
      // Issue 19: Prism refused the trimmed-and-dropped form the server reads as `rock`.
      'genres=%20rock%20,',
      'genres=rock,,jazz,',
      'genres=',
      'vocaloid_banks=Hatsune%20Miku,%20GUMI&languages=ja,%20EN&genres=Rock',
      'vocaloid_banks=%E5%88%9D%E9%9F%B3%E3%83%9F%E3%82%AF',
      `genres=${encodeURIComponent(longest)}`,
      'limit=1',
      `limit=${limits.maxPageSize}`,
      'limit=&sort=&cursor=',
      'sort=release_date',
      'sort=-release_date',
      `limit=2&cursor=${page.data.pagination}`,
    ];
    for (const query of queries) {
      const result = await throughPrism({ path: `/api/v1/release?${query}` });
      expect(result.direct, query).toBe(200);
      expect(result.proxied, query).toBe(200);
      expect(result.violations, query).toEqual([]);
    }
    for (const path of [
      `/api/v1/release/${first!.id}`,
      '/api/v1/facets',
      '/api/v1/openapi.json',
      '/livez',
      '/readyz',
    ]) {
      const result = await throughPrism({ path });
      expect(result.direct, path).toBe(200);
      expect(result.violations, path).toEqual([]);
    }
    const problemPage = await throughPrism({ path: '/problems/not-found' });
    expect(problemPage.direct).toBe(200);
    expect(problemPage.violations).toEqual([]);
  });

  it('an API key, and the account and key journey with its bodies and path parameters', async () => {
    const { key } = await server.createKey();
    const health = await throughPrism({ path: '/api/v1/health', headers: { 'x-api-key': key } });
    expect(health.direct).toBe(200);
    expect(health.violations).toEqual([]);

    const email = 'Prism.User@Example.com';
    const signup = await throughPrism({
      method: 'POST',
      path: '/api/v1/auth/signup',
      body: { email, password: testPassword },
    });
    expect(signup.direct).toBe(201);
    expect(signup.violations).toEqual([]);
    const login = await server.send('POST', '/api/v1/auth/login', { email, password: testPassword });
    const { token } = ((await login.json()) as { data: { session: { token: string } } }).data.session;
    const auth = { authorization: `Bearer ${token}` };
    const loginThrough = await throughPrism({
      method: 'POST',
      path: '/api/v1/auth/login',
      body: { email, password: testPassword },
    });
    expect(loginThrough.direct).toBe(200);
    expect(loginThrough.violations).toEqual([]);

    const created = await server.send('POST', '/api/v1/keys', { name: 'for revoking' }, { session: token });
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const calls: Array<[Call, number]> = [
      [{ path: '/api/v1/auth/session', headers: auth }, 200],
      [{ method: 'POST', path: '/api/v1/keys', body: { name: '  ci key  ', expires_in_days: 30 }, headers: auth }, 201],
      [{ method: 'POST', path: '/api/v1/keys', body: { name: 'ロック 🎸' }, headers: auth }, 201],
      [{ path: '/api/v1/keys', headers: auth }, 200],
      [{ method: 'DELETE', path: `/api/v1/keys/${id}`, headers: auth }, 200],
    ];
    for (const [call, status] of calls) {
      const result = await throughPrism(call);
      expect(result.direct, `${call.method ?? 'GET'} ${call.path}`).toBe(status);
      expect(result.violations, `${call.method ?? 'GET'} ${call.path}`).toEqual([]);
    }
    const logout = await throughPrism({ method: 'POST', path: '/api/v1/auth/logout', headers: auth });
    expect(logout.violations).toEqual([]);
  });

  it('and refuses, as the server does, a filter longer than its maxLength', async () => {
    const tooLong = `genres=${'x,'.repeat(limits.maxFilterParameterLength / 2)}x`;
    const result = await throughPrism({ path: `/api/v1/release?${tooLong}` });
    expect(result.direct).toBe(400);
    expect(requestViolations(result.violations).map((v) => v.location.join('.'))).toEqual(['request.query.genres']);
  });
});

/**
 * What the server takes beyond what its document can declare: each is in the document's prose, and a strict
 * validator refuses it. Listed so that a change to either side is seen here.
 */
describe('where the server is more lenient than a validator of its document', () => {
  it.each<[string, Call, string]>([
    // A `type: string` parameter (SPEC §3.2) has one value; the union of repeats is in the description.
    ['a repeated filter', { path: '/api/v1/release?genres=rock&genres=jazz' }, 'request.query.genres'],
    // The server trims every parameter; an enum cannot say so.
    ['spaces around the sort order', { path: '/api/v1/release?sort=%20release_date' }, 'request.query.sort'],
    // Emails are trimmed before they are checked; `format: email` cannot say so.
    [
      'spaces around an email',
      {
        method: 'POST',
        path: '/api/v1/auth/login',
        body: { email: ' nobody@example.com ', password: 'whatever it is' },
      },
      'request.body.email',
    ],
  ])('%s', async (_name, call, location) => {
    const result = await throughPrism(call);
    expect(result.direct).not.toBe(400);
    expect(requestViolations(result.violations).map((v) => v.location.join('.'))).toEqual([location]);
  });
});
