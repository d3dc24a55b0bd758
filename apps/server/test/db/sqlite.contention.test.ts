import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/db/backend.js';
import type { Storage } from '../../src/db/interface.js';
import { sampleReleases, startTestServer, type TestServer } from '../support/harness.js';
import { requireBuild, startServer, type ServerProcess } from '../support/process-harness.js';

/**
 * better-sqlite3 is synchronous: a statement that waits for SQLite's write lock waits with the whole event
 * loop, and Kysely's one writer connection serves its callers in turn. So a long write (the CLI importing,
 * another process) must never stall the server: reads go around the writer, and writes wait on timers.
 *
 * No durations are asserted: each request gets a generous bound, and what matters is the order of events
 * (answers arrive while the lock is still held; waiting writes complete once it is released).
 */
const email = 'contention@example.com';
const password = 'a long enough password';
/** A generous bound on each answer: a stalled server shows up as an abort here, not as a slow test. */
const bounded = (): RequestInit => ({ signal: AbortSignal.timeout(15_000) });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Notes when a login reaches its first write (it sweeps the user's ended sessions, then inserts one). */
function watchLoginWrites(): { wrapStorage: (storage: Storage) => Storage; started: () => boolean } {
  let started = false;
  return {
    started: () => started,
    wrapStorage: (storage) =>
      Object.assign(Object.create(storage) as Storage, {
        sessions: Object.assign(Object.create(storage.sessions) as Storage['sessions'], {
          deleteExpired: (now: string, userId?: string) => {
            started = true;
            return storage.sessions.deleteExpired(now, userId);
          },
        }),
      }),
  };
}

function login(target: TestServer): Promise<Response> {
  return fetch(`${target.baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(30_000),
  });
}

/** The reads every caller makes; each must answer while a write holds the database. */
async function expectReadsAnswer(target: TestServer, key: string, releaseId: string): Promise<void> {
  const reads: Array<[string, RequestInit?]> = [
    // A filtered list needs the planner statistics, read from facet_values.
    ['/api/v1/release?genres=rock&limit=3'],
    ['/api/v1/release?limit=3'],
    ['/api/v1/facets'],
    [`/api/v1/release/${releaseId}`],
    ['/api/v1/health', { headers: { 'x-api-key': key } }],
    ['/readyz'],
  ];
  for (const [path, init] of reads) {
    const response = await target.get(path, { ...init, ...bounded() });
    expect(response.status, path).toBe(200);
  }
}

async function isPending(promise: Promise<unknown>): Promise<boolean> {
  return Promise.race([promise.then(() => false), sleep(0).then(() => true)]);
}

describe('SQLite while another connection writes', () => {
  it('reads, health and sign-in keep answering while another process holds the write lock; waiting writes finish after', async () => {
    const watch = watchLoginWrites();
    server = await startTestServer({ wrapStorage: watch.wrapStorage, config: { databaseStatementTimeoutMs: 60_000 } });
    await server.services.accounts.createUser(email, password);
    const key = await server.createKey();
    const releaseId = (await sampleReleases())[0]!.id;

    // Another connection (as the CLI's import would) takes the write lock and keeps it.
    const importer = new BetterSqlite3(server.databaseFile);
    try {
      importer.exec('begin immediate');
      importer.prepare("update catalogue_state set updated_at = '2000-01-01T00:00:00.000Z' where id = 1").run();

      const signingIn = login(server);
      await expect.poll(watch.started, { timeout: 15_000 }).toBe(true);
      // The sign-in now waits for the lock, on timers: everything else is still served meanwhile.
      await expectReadsAnswer(server, key.key, releaseId);
      // The health check noted the key's use; its batched write finds the lock taken and keeps it for later.
      await sleep(300);
      await expectReadsAnswer(server, key.key, releaseId);
      expect(await isPending(signingIn), 'the sign-in waits for the lock instead of failing').toBe(true);
      expect((await server.services.storage.keys.findById(key.id))?.lastUsedAt).toBeNull();

      importer.exec('commit');
      const response = await signingIn;
      expect(response.status).toBe(200);
      // The last-use write that met the lock is written by a later flush.
      await expect
        .poll(async () => (await server!.services.storage.keys.findById(key.id))?.lastUsedAt, { timeout: 10_000 })
        .not.toBeNull();
    } finally {
      importer.close();
    }
  });

  it("reads never queue behind a transaction on the server's own writer connection", async () => {
    server = await startTestServer({ config: { databaseStatementTimeoutMs: 60_000 } });
    await server.services.accounts.createUser(email, password);
    const key = await server.createKey();
    const releaseId = (await sampleReleases())[0]!.id;
    // A long write in this process (the first-run seed, an import through the storage API): Kysely gives
    // its one writer connection to the transaction until it ends.
    const backend = (server.services.storage as unknown as { backend: Backend }).backend;
    let finish: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const transaction = backend.db.transaction().execute(async (trx) => {
      await trx.updateTable('catalogue_state').set({ updated_at: '2000-01-01T00:00:00.000Z' }).execute();
      await gate;
    });
    try {
      await expectReadsAnswer(server, key.key, releaseId);
      const signingIn = login(server);
      // The account is found (a read) and the password checked while the transaction is open...
      await sleep(300);
      await expectReadsAnswer(server, key.key, releaseId);
      finish();
      await transaction;
      // ...and the session written once it has ended.
      expect((await signingIn).status).toBe(200);
    } finally {
      finish();
      await transaction.catch(() => undefined);
    }
  });

  it('an import that waits for the lock loads all of its (read-once) input when it gets it', async () => {
    server = await startTestServer({ releases: 'none', config: { databaseStatementTimeoutMs: 60_000 } });
    const template = (await sampleReleases())[0]!;
    function* releases() {
      for (let i = 0; i < 2_500; i++) yield { ...template, id: `rel_bulk_${String(i).padStart(5, '0')}` };
    }
    const other = new BetterSqlite3(server.databaseFile);
    try {
      other.exec('begin immediate');
      const loading = server.services.storage.catalogueWrites.loadReleases(releases(), new Date());
      await sleep(300);
      expect(await isPending(loading)).toBe(true);
      other.exec('commit');
      expect(await loading).toBe(2_500);
      expect(await server.services.storage.catalogue.countReleases()).toBe(2_500);
    } finally {
      other.close();
    }
  });

  it('the server starts (and serves) while another process holds the write lock', async () => {
    requireBuild();
    const folder = mkdtempSync(path.join(tmpdir(), 'releases-locked-start-'));
    const file = path.join(folder, 'releases.db');
    const env = { DATABASE_URL: `file:${file}`, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
    let running: ServerProcess | undefined;
    const other = new BetterSqlite3(file);
    try {
      // A first start made the database (schema, cursor secret); now an import holds the lock at the next one.
      const first = await startServer(env);
      first.child.kill('SIGTERM');
      await first.exited;
      other.exec('begin immediate');
      running = await startServer(env);
      expect((await fetch(`${running.url}/api/v1/release`, bounded())).status).toBe(200);
      other.exec('commit');
    } finally {
      other.close();
      await running?.kill();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
