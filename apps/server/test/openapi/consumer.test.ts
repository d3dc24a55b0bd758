import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedIds, sampleReleases, startTestServer, type TestServer } from '../support/harness.js';

/**
 * A stranger's generated client: `openapi-typescript` turns the served document into types, and a small
 * `openapi-fetch` program written against them must compile under the strictest settings and then run against
 * the server. It uses the named schema types (`components['schemas']['Release']`), narrows a problem, and
 * manages API keys with a session.
 */

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = require.resolve('typescript/bin/tsc');

const consumer = (baseUrl: string) => `import createClient from 'openapi-fetch';
import type { components, paths } from './releases-api.js';

type Release = components['schemas']['Release'];
type Problem = components['schemas']['Problem'];
type ProblemKind = components['schemas']['ProblemKind'];
type ApiKey = components['schemas']['ApiKey'];

// The operations answer with the named types, not anonymous copies of them.
type ListBody = paths['/api/v1/release']['get']['responses'][200]['content']['application/json'];
const named: ListBody extends components['schemas']['ReleaseListResponse'] ? true : false = true;

// The filters are strings, as the interface types them; not arrays, not unions with arrays.
type ListQuery = NonNullable<paths['/api/v1/release']['get']['parameters']['query']>;
type Filter = ListQuery['genres'] | ListQuery['vocaloid_banks'] | ListQuery['languages'];
const filtersAreStrings: [Filter] extends [string | undefined] ? ([string] extends [Filter] ? true : false) : false = true;

const client = createClient<paths>({ baseUrl: ${JSON.stringify(baseUrl)} });

function kindOf(problem: Problem): ProblemKind | undefined {
  const kinds: ProblemKind[] = ['not-found', 'invalid-request', 'unauthorized', 'rate-limited'];
  return kinds.find((kind) => problem.type.endsWith('/problems/' + kind));
}

const list = await client.GET('/api/v1/release', {
  // A string, as the interface types the filters (SPEC §3.2): comma-separated values.
  params: { query: { genres: 'rock,electropop', limit: 2, sort: '-release_date' } },
});
if (list.error !== undefined) throw new Error('list failed: ' + list.error.detail);
const first: Release | undefined = list.data.data.releases[0];
const title: string | undefined = list.data.data.releases[0]?.title;

const missing = await client.GET('/api/v1/release/{id}', { params: { path: { id: 'rel_missing' } } });
if (missing.error === undefined) throw new Error('expected a problem');
const problem: Problem = missing.error;
const status: number = problem.status;

const credentials = { email: 'consumer@example.test', password: 'a long enough password' };
const signup = await client.POST('/api/v1/auth/signup', { body: credentials });
if (signup.error !== undefined) throw new Error('signup failed: ' + signup.error.detail);
const auth = { headers: { Authorization: 'Bearer ' + signup.data.data.session.token } };
const created = await client.POST('/api/v1/keys', { body: { name: 'generated client', expires_in_days: 30 }, ...auth });
if (created.error !== undefined) throw new Error('create failed: ' + created.error.detail);
const secret: string = created.data.data.key;
const keys = await client.GET('/api/v1/keys', auth);
const listed: ApiKey[] = keys.data?.data.keys ?? [];
const revoked = await client.DELETE('/api/v1/keys/{id}', { params: { path: { id: created.data.data.id } }, ...auth });

console.log(JSON.stringify({
  named,
  filtersAreStrings,
  count: list.data.data.releases.length,
  firstId: first?.id ?? null,
  title: title ?? null,
  problem: { status, kind: kindOf(problem) ?? null },
  keyShown: secret.startsWith('rls_'),
  listed: listed.map((key) => key.id),
  revoked: revoked.data?.data.revoked_at !== null,
}));
`;

let server: TestServer;
let project: string;

beforeAll(async () => {
  server = await startTestServer({ releases: await sampleReleases() });
  project = mkdtempSync(path.join(tmpdir(), 'releases-openapi-consumer-'));
  // openapi-fetch as the consumer's one dependency, linked from this package's own install (offline).
  mkdirSync(path.join(project, 'node_modules'));
  symlinkSync(
    realpathSync(path.join(serverRoot, 'node_modules', 'openapi-fetch')),
    path.join(project, 'node_modules', 'openapi-fetch'),
  );
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const document = await (await server.get('/api/v1/openapi.json')).text();
  writeFileSync(path.join(project, 'openapi.json'), document);
  writeFileSync(path.join(project, 'consumer.ts'), consumer(server.baseUrl));
});
afterAll(async () => {
  await server?.close();
  rmSync(project, { recursive: true, force: true });
});

describe('a generated openapi-typescript + openapi-fetch client', () => {
  it('compiles under strict settings against the named types, and works', async () => {
    await run(
      path.join(serverRoot, 'node_modules', '.bin', 'openapi-typescript'),
      ['openapi.json', '--output', 'releases-api.d.ts'],
      { cwd: project, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    const compiled = await run(
      process.execPath,
      [
        tsc,
        '--strict',
        '--exactOptionalPropertyTypes',
        '--noUncheckedIndexedAccess',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--lib',
        'es2022,dom',
        '--skipLibCheck',
        'false',
        '--outDir',
        'out',
        'consumer.ts',
      ],
      { cwd: project },
    ).catch((error: Error & { stdout?: string }) => ({ stdout: error.stdout ?? error.message }));
    expect(compiled.stdout).toBe('');

    const { stdout } = await run(process.execPath, ['out/consumer.js'], { cwd: project });
    const releases = await sampleReleases();
    const [firstId] = expectedIds(releases, { genres: ['electropop', 'rock'] });
    expect(JSON.parse(stdout)).toEqual({
      named: true,
      filtersAreStrings: true,
      count: 2,
      firstId,
      title: releases.find((r) => r.id === firstId)?.title,
      problem: { status: 404, kind: 'not-found' },
      keyShown: true,
      listed: [expect.stringMatching(/^key_/) as unknown],
      revoked: true,
    });
  });
});
