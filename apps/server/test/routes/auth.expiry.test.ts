import { CreatedApiKeyResponseSchema, SessionInfoResponseSchema } from '@releases/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, type TestServer } from '../support/harness.js';

const minute = 60_000;
const day = 86_400_000;

/** A clock the tests move, instead of sleeping for days. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };

describe.each(testDatabases())('expiry with an injected clock ($database)', ({ database, run }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({
      database,
      releases: 'none',
      clock,
      // Every key lookup reads the database, so expiry is seen at the exact moment.
      config: { keyCacheTtlMs: 0, sessions: { idleTtlMs: 7 * day, absoluteTtlMs: 30 * day } },
    });
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    clock.offset = 0;
  });

  const sessionOf = (token: string) =>
    server.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${token}` } });
  const expiresAt = async (token: string) =>
    SessionInfoResponseSchema.parse(await (await sessionOf(token)).json()).data.session.expires_at;

  it.runIf(run)('ends a session left idle for the idle lifetime', async () => {
    const { token } = await server.signup();
    clock.offset = 7 * day - minute;
    expect((await sessionOf(token)).status).toBe(200);
    clock.offset = 7 * day - minute + 7 * day; // a week after its last use
    const problem = await expectProblem(await sessionOf(token), 'unauthorized', 401);
    expect(problem.detail).toBe('The session token is invalid or has expired. Sign in again.');
  });

  it.runIf(run)('slides the idle expiry with use, writing at most once a minute', async () => {
    const { token, userId } = await server.signup();
    const created = Date.now();
    const lastSeen = async () => (await server.rows('sessions')).find((row) => row.user_id === userId)?.last_seen_at;
    const seenAtSignup = await lastSeen();
    // Several uses within the first minute: the row is not written at all.
    for (let i = 0; i < 5; i++) expect((await sessionOf(token)).status).toBe(200);
    expect(await lastSeen()).toBe(seenAtSignup);
    // Two minutes on: the first use writes, the next ones within the minute do not.
    clock.offset = 2 * minute;
    expect((await sessionOf(token)).status).toBe(200);
    const seenOnce = await lastSeen();
    expect(seenOnce).not.toBe(seenAtSignup);
    clock.offset = 2 * minute + 30_000;
    for (let i = 0; i < 5; i++) expect((await sessionOf(token)).status).toBe(200);
    expect(await lastSeen()).toBe(seenOnce);
    // Used every six days, it outlives the 7-day idle limit, and ends a week after its last use.
    for (let at = 6; at <= 18; at += 6) {
      clock.offset = at * day;
      expect((await sessionOf(token)).status).toBe(200);
    }
    const slid = Date.parse(await expiresAt(token));
    expect(slid).toBeGreaterThan(created + 18 * day + 6 * day);
    expect(slid).toBeLessThanOrEqual(clock.now() + 7 * day);
  });

  it.runIf(run)('ends a session at its absolute lifetime however much it is used', async () => {
    const { token, userId } = await server.signup();
    for (let at = 5; at < 30; at += 5) {
      clock.offset = at * day;
      expect((await sessionOf(token)).status).toBe(200);
    }
    // expires_at never passes the absolute limit.
    clock.offset = 29 * day;
    expect(Date.parse(await expiresAt(token))).toBeLessThanOrEqual(clock.now() + day + minute);
    clock.offset = 30 * day + minute;
    await expectProblem(await sessionOf(token), 'unauthorized', 401);
    // The ended session's row is deleted when it is next presented.
    expect((await server.rows('sessions')).filter((row) => row.user_id === userId)).toEqual([]);
  });

  it.runIf(run)('stops a key at its expiry', async () => {
    const { token } = await server.signup();
    const response = await server.send(
      'POST',
      '/api/v1/keys',
      { name: 'short', expires_in_days: 1 },
      { session: token },
    );
    const key = CreatedApiKeyResponseSchema.parse(await response.json()).data;
    const health = () => server.get('/api/v1/health', { headers: { 'x-api-key': key.key } });
    clock.offset = day - minute;
    expect((await health()).status).toBe(200);
    clock.offset = day + minute;
    const problem = await expectProblem(await health(), 'unauthorized', 401);
    expect(problem.detail).toBe(`The API key expired at ${key.expires_at}.`);
    // An expired key no longer counts towards the 25 active keys, and is still listed.
    const list = await server.get('/api/v1/keys', { headers: { authorization: `Bearer ${token}` } });
    expect(((await list.json()) as { data: { keys: unknown[] } }).data.keys).toHaveLength(1);
  });

  it.runIf(run)("sweeps a user's ended sessions when they sign in again", async () => {
    const account = await server.signup();
    clock.offset = 8 * day;
    const login = await server.send('POST', '/api/v1/auth/login', { email: account.email, password: account.password });
    expect(login.status).toBe(200);
    const rows = (await server.rows('sessions')).filter((row) => row.user_id === account.userId);
    expect(rows).toHaveLength(1); // the idle-expired signup session is gone, the new one stays
  });

  it.runIf(run)('sweeps ended sessions on a timer, of users who never come back, and leaves live ones', async () => {
    const sweeping = await startTestServer({
      database,
      releases: 'none',
      clock,
      config: { sessions: { idleTtlMs: 7 * day, absoluteTtlMs: 30 * day } },
      sessionSweepIntervalMs: 20,
    });
    const sessionOn = (token: string) =>
      sweeping.get('/api/v1/auth/session', { headers: { authorization: `Bearer ${token}` } });
    try {
      const gone = await sweeping.signup();
      const active = await sweeping.signup();
      clock.offset = 6 * day;
      expect((await sessionOn(active.token)).status).toBe(200);
      // A day past the first user's idle expiry, which they never present again; the second's was moved.
      clock.offset = 8 * day;
      const usersWithSessions = async () =>
        new Set((await sweeping.rows('sessions')).map((row) => row.user_id as string));
      await expect.poll(usersWithSessions, { timeout: 5_000 }).not.toContain(gone.userId);
      expect(await usersWithSessions()).toContain(active.userId);
      expect((await sessionOn(active.token)).status).toBe(200);
    } finally {
      await sweeping.close();
    }
  });
});
