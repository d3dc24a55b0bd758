import { createHash } from 'node:crypto';
import { isWellFormedUnkeyKey } from '@releases/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UnkeyConfig } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { expectProblem, startTestServer, testDatabases, type TestServer } from '../support/harness.js';
import { closedPort, startUnkeyStandin, type Misbehaviour, type UnkeyStandin } from '../support/unkey-standin.js';

/**
 * The `unkey` key manager, through the real server over HTTP, against a local stand-in that speaks Unkey's
 * v2 wire format (see unkey-standin.ts). Nothing of ours is mocked.
 */

// Everything any server in this file logs, and every response it sends: the root key must be in neither.
const logLines: string[] = [];
const logger = createLogger('trace', { write: (line: string) => void logLines.push(line) });
const seen: string[] = [];
// The SDK writes to the console in debug mode; we capture the console too, with debug mode on.
const consoleOutput: string[] = [];
// API keys handed out in this file: none may reach a log either.
const issuedKeys: string[] = [];

/** A clock the cache tests move forward. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };

const timeoutMs = 1000;
let standin: UnkeyStandin;
let server: TestServer;
let token: string;

function unkeyConfig(overrides: Partial<UnkeyConfig> = {}): UnkeyConfig {
  return { rootKey: standin.rootKey, apiId: standin.apiId, baseUrl: standin.url, timeoutMs, ...overrides };
}

/** Fetches from a test server, keeping what came back (status, headers, body) for the secrecy checks. */
async function call(target: TestServer, path: string, init: RequestInit = {}): Promise<Response> {
  // Bounded: a request that never comes back fails the test instead of hanging it.
  const response = await target.get(path, { signal: AbortSignal.timeout(15_000), ...init });
  const text = await response.text();
  seen.push(`${response.status} ${JSON.stringify([...response.headers])} ${text}`);
  return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
}

const health = (key: string, target: TestServer = server) =>
  call(target, '/api/v1/health', { headers: { 'x-api-key': key } });

const asUser = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
});

async function createViaApi(body: { name: string; expires_in_days?: number }): Promise<Response> {
  return call(server, '/api/v1/keys', asUser({ method: 'POST', body: JSON.stringify(body) }));
}

async function createdKey(response: Response): Promise<{ id: string; key: string; start: string }> {
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { id: string; key: string; start: string } };
  issuedKeys.push(data.key);
  return data;
}

/** A key issued through the key manager directly (no owner), as the CLI does. */
async function directKey(target: TestServer = server): Promise<{ id: string; key: string }> {
  const created = await target.createKey();
  issuedKeys.push(created.key);
  return created;
}

async function signUp(target: TestServer, email: string): Promise<string> {
  const response = await call(target, '/api/v1/auth/signup', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { session: { token: string } } }).data.session.token;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const lastRequest = (operation: string) => standin.requests.filter((r) => r.operation === operation).at(-1);

describe.each(testDatabases())('the unkey key manager ($database)', ({ database, run }) => {
  beforeAll(async () => {
    if (!run) return;
    process.env.UNKEY_DEBUG = 'true';
    for (const method of ['log', 'info', 'debug', 'warn', 'error', 'group', 'groupCollapsed'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        consoleOutput.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
      });
    }
    standin = await startUnkeyStandin();
    server = await startTestServer({
      database,
      releases: 'none',
      logger,
      config: { keyManager: 'unkey', keyCacheTtlMs: 0, unkey: unkeyConfig() },
    });
    token = await signUp(server, 'owner@example.com');
  });

  afterAll(async () => {
    if (!run) return;
    await server.close();
    await standin.close();
    vi.restoreAllMocks();
    delete process.env.UNKEY_DEBUG;
  });

  afterEach(() => {
    if (!run) return;
    // Every request the SDK sent had the shape, headers and root key the real Unkey expects.
    expect(standin.violations).toEqual([]);
    for (const operation of ['keys.createKey', 'keys.verifyKey', 'keys.deleteKey'] as const) {
      standin.misbehave(operation, undefined);
    }
  });

  describe.runIf(run)('creating keys', () => {
    it('Unkey makes the key; it is shown once, and our row holds metadata and the external id only', async () => {
      const response = await createViaApi({ name: 'ci', expires_in_days: 30 });
      const created = await createdKey(response);
      expect(isWellFormedUnkeyKey(created.key)).toBe(true);
      expect(created.key).toMatch(/^rls_[1-9A-HJ-NP-Za-km-z]{16,64}$/);
      expect(created.start).toBe(created.key.slice(0, 12));

      const atUnkey = standin.keys.get(created.key);
      expect(atUnkey).toBeDefined();
      expect(lastRequest('keys.createKey')?.body).toEqual({
        apiId: standin.apiId,
        prefix: 'rls',
        byteLength: 32,
        name: created.id,
        expires: expect.any(Number) as number,
        enabled: true,
        recoverable: false,
      });

      const row = await server.services.storage.keys.findById(created.id);
      expect(row).toMatchObject({
        id: created.id,
        name: 'ci',
        externalId: atUnkey!.keyId,
        keyHash: sha256(created.key),
        displayStart: created.key.slice(0, 12),
        revokedAt: null,
      });
      expect(row!.ownerId).toMatch(/^usr_/);
      expect(Date.parse(row!.expiresAt!)).toBe(atUnkey!.expires);

      // The table itself, read with SQL: no column of any key row holds the key.
      expect(JSON.stringify(await server.rows('api_keys'))).not.toContain(created.key);

      // Listed without the key; and the key works.
      const list = await call(server, '/api/v1/keys', asUser());
      expect(list.status).toBe(200);
      const listed = await list.text();
      expect(listed).toContain(created.id);
      expect(listed).not.toContain(created.key);
      const ok = await health(created.key);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('"OK"');
      expect(lastRequest('keys.verifyKey')?.body).toEqual({ key: created.key });
    });

    it('a creation Unkey cannot answer is a 503, and leaves no row', async () => {
      const before = (await server.services.storage.keys.list()).length;
      for (const how of [{ kind: 'status', status: 500 }, { kind: 'hang' }] satisfies Misbehaviour[]) {
        standin.misbehave('keys.createKey', how);
        const response = await createViaApi({ name: 'doomed' });
        await expectProblem(response, 'service-unavailable', 503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      expect((await server.services.storage.keys.list()).length).toBe(before);
    });

    it('holds the active key limit: a key our database refuses is deleted at Unkey again', async () => {
      const own = await signUp(server, 'limit@example.com');
      const create = (name: string) =>
        call(server, '/api/v1/keys', {
          method: 'POST',
          headers: { authorization: `Bearer ${own}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
      for (let i = 0; i < 24; i++) await createdKey(await create(`k${i}`));

      // Two creations overlap: both pass the early count, both get a key from Unkey, one insert wins.
      const createsBefore = standin.count('keys.createKey');
      const deletesBefore = standin.count('keys.deleteKey');
      standin.holdCreates(2);
      const raced = await Promise.all([create('a'), create('b')]);
      expect(raced.map((r) => r.status).sort()).toEqual([201, 409]);
      await expectProblem(
        raced.find((r) => r.status === 409)!,
        'conflict',
        409,
      );
      issuedKeys.push(((await raced.find((r) => r.status === 201)!.json()) as { data: { key: string } }).data.key);
      expect(standin.count('keys.createKey')).toBe(createsBefore + 2);
      // The loser's key was deleted at Unkey: nothing usable is left behind.
      expect(standin.count('keys.deleteKey')).toBe(deletesBefore + 1);
      const made = [...standin.keys.values()].slice(-2);
      expect(made.filter((key) => key.deleted)).toHaveLength(1);
      const orphan = made.find((key) => key.deleted)!;
      expect(await server.services.storage.keys.findByExternalId(orphan.keyId)).toBeUndefined();
      await expectProblem(await health(orphan.key), 'unauthorized', 401);

      // At the limit, Unkey is not even asked.
      await expectProblem(await create('c'), 'conflict', 409);
      expect(standin.count('keys.createKey')).toBe(createsBefore + 2);
    });
  });

  describe.runIf(run)('verification codes', () => {
    it.each([
      ['NOT_FOUND', 401, 'unauthorized', 'The API key is not recognised.'],
      ['EXPIRED', 401, 'unauthorized', undefined],
      ['DISABLED', 401, 'unauthorized', 'The API key has been disabled.'],
      ['SOMETHING_UNKEY_ADDS_LATER', 401, 'unauthorized', 'The API key is not recognised.'],
      ['RATE_LIMITED', 429, 'rate-limited', 'The API key has reached its rate limit at the key manager.'],
      ['USAGE_EXCEEDED', 429, 'rate-limited', 'The API key has used up its allowance.'],
      ['FORBIDDEN', 403, 'forbidden', 'The API key is not allowed to call this API.'],
      ['INSUFFICIENT_PERMISSIONS', 403, 'forbidden', 'The API key is not allowed to call this API.'],
    ] as const)('%s is a %i', async (code, status, kind, detail) => {
      const { key } = await directKey();
      standin.keys.get(key)!.forcedCode = code;
      const response = await health(key);
      const problem = await expectProblem(response, kind, status);
      if (detail) expect(problem.detail).toBe(detail);
      if (code === 'EXPIRED') expect(problem.detail).toMatch(/^The API key expired at /);
      if (status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^ApiKey /);
      if (status === 429) {
        // The stand-in's limit resets in 30 s.
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
    });

    it('a key Unkey does not know is a 401', async () => {
      await expectProblem(await health(`rls_${'A'.repeat(30)}`), 'unauthorized', 401);
    });

    it('a key Unkey itself disabled is a 401', async () => {
      const { key } = await directKey();
      standin.keys.get(key)!.enabled = false;
      const problem = await expectProblem(await health(key), 'unauthorized', 401);
      expect(problem.detail).toBe('The API key has been disabled.');
    });

    it('a VALID key we have no row for is refused (fail closed)', async () => {
      const foreign = standin.addForeignKey();
      const before = standin.count('keys.verifyKey');
      const problem = await expectProblem(await health(foreign.key), 'unauthorized', 401);
      expect(problem.detail).toBe('The API key is not recognised.');
      expect(standin.count('keys.verifyKey')).toBe(before + 1);
    });

    it('a malformed key is refused before Unkey is asked', async () => {
      const before = standin.count('keys.verifyKey');
      for (const key of ['rls_short', `rls_${'0'.repeat(30)}`, `sk_${'A'.repeat(30)}`, `rls_${'A'.repeat(65)}`]) {
        const problem = await expectProblem(await health(key), 'unauthorized', 401);
        expect(problem.detail).toBe(
          'The API key is malformed: keys start with rls_ followed by 16 to 64 base58 characters.',
        );
      }
      expect(standin.count('keys.verifyKey')).toBe(before);
    });
  });

  describe.runIf(run)('revoking keys', () => {
    it('deletes the key at Unkey, marks our row, and the key is a 401 from then on', async () => {
      const created = await createdKey(await createViaApi({ name: 'to revoke' }));
      expect((await health(created.key)).status).toBe(200);

      const revoked = await call(server, `/api/v1/keys/${created.id}`, asUser({ method: 'DELETE' }));
      expect(revoked.status).toBe(200);
      const { data } = (await revoked.json()) as { data: { revoked_at: string | null } };
      expect(data.revoked_at).not.toBeNull();
      const atUnkey = standin.keys.get(created.key)!;
      expect(lastRequest('keys.deleteKey')?.body).toEqual({ keyId: atUnkey.keyId, permanent: false });
      expect(atUnkey.deleted).toBe(true);

      await expectProblem(await health(created.key), 'unauthorized', 401);
      // Revoking again answers the same, without asking Unkey.
      const deletes = standin.count('keys.deleteKey');
      const again = await call(server, `/api/v1/keys/${created.id}`, asUser({ method: 'DELETE' }));
      expect(((await again.json()) as { data: { revoked_at: string } }).data.revoked_at).toBe(data.revoked_at);
      expect(standin.count('keys.deleteKey')).toBe(deletes);
    });

    it('when Unkey cannot delete, it is a 503 and nothing changes here; a retry then succeeds', async () => {
      const created = await createdKey(await createViaApi({ name: 'sticky' }));
      for (const how of [
        { kind: 'status', status: 500 },
        { kind: 'hang' },
        { kind: 'not-json' },
      ] satisfies Misbehaviour[]) {
        standin.misbehave('keys.deleteKey', how);
        const response = await call(server, `/api/v1/keys/${created.id}`, asUser({ method: 'DELETE' }));
        await expectProblem(response, 'service-unavailable', 503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect((await server.services.storage.keys.findById(created.id))?.revokedAt).toBeNull();
      }
      standin.misbehave('keys.deleteKey', undefined);
      expect((await health(created.key)).status).toBe(200);
      expect((await call(server, `/api/v1/keys/${created.id}`, asUser({ method: 'DELETE' }))).status).toBe(200);
      await expectProblem(await health(created.key), 'unauthorized', 401);
    });

    it('a key already deleted at Unkey (NOT_FOUND) counts as revoked', async () => {
      const created = await createdKey(await createViaApi({ name: 'gone' }));
      standin.keys.get(created.key)!.deleted = true;
      const response = await call(server, `/api/v1/keys/${created.id}`, asUser({ method: 'DELETE' }));
      expect(response.status).toBe(200);
      expect((await server.services.storage.keys.findById(created.id))?.revokedAt).not.toBeNull();
    });
  });

  describe.runIf(run)('failing closed', () => {
    it.each([
      ['Unkey hangs (bounded by UNKEY_TIMEOUT)', { kind: 'hang' }],
      ['Unkey answers 500', { kind: 'status', status: 500 }],
      ['Unkey answers 503', { kind: 'status', status: 503 }],
      ['Unkey answers 429 (our workspace is limited)', { kind: 'status', status: 429 }],
      ['Unkey answers a body that is not JSON', { kind: 'not-json' }],
      ['Unkey answers JSON of the wrong shape', { kind: 'wrong-shape' }],
    ] satisfies Array<[string, Misbehaviour]>)('%s: 503 with Retry-After, never a pass', async (_label, how) => {
      const { key } = await directKey();
      expect((await health(key)).status).toBe(200);
      standin.misbehave('keys.verifyKey', how);
      // `call` gives up after 15 s, far beyond the 1 s UNKEY_TIMEOUT: coming back at all is the bound.
      const response = await health(key);
      const problem = await expectProblem(response, 'service-unavailable', 503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(problem.detail).toBe('The key manager is not answering. Try again shortly.');
    });

    it('Unkey refuses connections: 503, never a pass', async () => {
      const unreachable = await startTestServer({
        database,
        releases: 'none',
        logger,
        config: {
          keyManager: 'unkey',
          keyCacheTtlMs: 0,
          unkey: unkeyConfig({ baseUrl: `http://127.0.0.1:${await closedPort()}` }),
        },
      });
      try {
        const response = await health(`rls_${'B'.repeat(40)}`, unreachable);
        await expectProblem(response, 'service-unavailable', 503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      } finally {
        await unreachable.close();
      }
    });

    it("Unkey answers with the wrong root key: 503 (our misconfiguration, not the caller's bad key)", async () => {
      const misconfigured = await startTestServer({
        database,
        releases: 'none',
        logger,
        config: { keyManager: 'unkey', keyCacheTtlMs: 0, unkey: unkeyConfig({ rootKey: 'unkey_wrongwrongwrong' }) },
      });
      try {
        const { key } = await directKey();
        await expectProblem(await health(key, misconfigured), 'service-unavailable', 503);
      } finally {
        await misconfigured.close();
        // The stand-in rightly recorded the wrong credential; that was the point.
        standin.violations.length = 0;
      }
    });
  });

  describe.runIf(run)('the positive cache', () => {
    let cached: TestServer;
    beforeAll(async () => {
      if (!run) return;
      cached = await startTestServer({
        database,
        releases: 'none',
        logger,
        clock,
        config: { keyManager: 'unkey', keyCacheTtlMs: 5000, unkey: unkeyConfig() },
      });
    });
    afterAll(() => cached?.close());

    it('a pass is reused within KEY_CACHE_TTL, asked again after it, and dropped by a revocation', async () => {
      const { id, key } = await directKey(cached);
      const before = standin.count('keys.verifyKey');
      expect((await health(key, cached)).status).toBe(200);
      expect((await health(key, cached)).status).toBe(200);
      expect(standin.count('keys.verifyKey')).toBe(before + 1);

      // Even a failing Unkey does not matter while the pass is fresh.
      standin.misbehave('keys.verifyKey', { kind: 'status', status: 500 });
      expect((await health(key, cached)).status).toBe(200);
      standin.misbehave('keys.verifyKey', undefined);

      clock.offset += 5001;
      expect((await health(key, cached)).status).toBe(200);
      expect(standin.count('keys.verifyKey')).toBe(before + 2);

      await cached.services.keys.revoke(id);
      await expectProblem(await health(key, cached), 'unauthorized', 401);
      expect(standin.count('keys.verifyKey')).toBe(before + 3);
    });

    it('refusals are not cached', async () => {
      const unknown = `rls_${'C'.repeat(40)}`;
      const before = standin.count('keys.verifyKey');
      await expectProblem(await health(unknown, cached), 'unauthorized', 401);
      await expectProblem(await health(unknown, cached), 'unauthorized', 401);
      expect(standin.count('keys.verifyKey')).toBe(before + 2);
    });
  });

  describe.runIf(run)('the root key', () => {
    it('never appears in a log line, on the console (even with UNKEY_DEBUG set) or in a response', async () => {
      // Every path above ran with this logger; make sure there was something to read.
      expect(logLines.length).toBeGreaterThan(50);
      expect(logLines.some((line) => line.includes('"level":50'))).toBe(true); // the 503s were logged
      expect(seen.length).toBeGreaterThan(50);
      for (const output of [logLines, consoleOutput, seen]) {
        for (const line of output) {
          expect(line).not.toContain(standin.rootKey);
          expect(line).not.toContain('unkey_wrongwrongwrong');
        }
      }
      // Nor does any API key we handed out reach a log.
      expect(issuedKeys.length).toBeGreaterThan(20);
      const allLogs = logLines.join('\n') + consoleOutput.join('\n');
      for (const key of issuedKeys) expect(allLogs).not.toContain(key);
    });
  });
});
