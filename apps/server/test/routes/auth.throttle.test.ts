import { createHash } from 'node:crypto';
import { limits } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { closedPort } from '../support/unkey-standin.js';
import {
  expectProblem,
  openRedisThrottleStores,
  startTestServer,
  testDatabases,
  uniqueEmail,
  type SignedUp,
  type TestServer,
} from '../support/harness.js';

/**
 * The per-account sign-in throttle (SPEC §3.7), as an attacker with many addresses meets it: every guess from
 * an address of its own (`TRUST_PROXY` and `X-Forwarded-For`), so the per-address quota never stops them. After
 * 10 failures to one account within 15 minutes, sign-ins to it are allowed once a minute from anywhere, until
 * one succeeds or the password is reset. The clock is injected: turns come by moving it, never by sleeping.
 */

const { failures: maxFailures, turnSeconds } = limits.signInThrottle;
const slotMs = limits.signInThrottle.windowMinutes * 60_000;

/**
 * The servers' clock. Each test starts it at a 15-minute slot of its own, 5 seconds in (so the next turn is
 * 55 seconds away), far from the others' counts.
 */
const clock = {
  base: 0,
  offset: 0,
  now: () => clock.base + clock.offset,
  /** A fresh slot, a few hours ahead of the last. */
  fresh(): void {
    clock.base = (Math.floor(Date.now() / slotMs) + 4 + Math.floor(Math.random() * 1000)) * slotMs + 5_000;
    clock.offset = 0;
  },
  nextTurn(): void {
    clock.offset += turnSeconds * 1000;
  },
};

let address = 0;
/** A client address never used before: each request its own, as from a botnet. */
const newAddress = () => `198.51.${Math.floor(++address / 250) % 250}.${(address % 250) + 1}`;

/** Servers that count sign-ins per address strictly (10 a minute), behind a proxy they trust. */
const strict: Partial<Config> = {
  trustProxy: true,
  rateLimits: { windowMs: 60_000, anonymous: 100_000, apiKey: 100_000, session: 100_000, auth: 10 },
};

function signIn(server: TestServer, email: string, password: string): Promise<Response> {
  return server.send(
    'POST',
    '/api/v1/auth/login',
    { email, password },
    { headers: { 'x-forwarded-for': newAddress() } },
  );
}

/** Ten wrong guesses, each from an address of its own, spread over the servers given: all 401. */
async function tenFailures(servers: TestServer[], email: string): Promise<void> {
  for (let i = 0; i < maxFailures; i++) {
    const response = await signIn(servers[i % servers.length]!, email, `wrong guess number ${i}`);
    expect(response.status, `guess ${i + 1}`).toBe(401);
    await response.arrayBuffer();
  }
}

async function expectThrottled(response: Response): Promise<void> {
  const problem = await expectProblem(response, 'rate-limited', 429);
  expect(problem.detail).toMatch(/too many failed sign-ins to this account/);
  expect(Number(response.headers.get('retry-after'))).toBe(55);
}

describe.each(testDatabases())('the per-account sign-in throttle ($database)', ({ database, run }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (run) server = await startTestServer({ database, releases: 'none', clock, config: strict });
  });
  afterAll(() => server?.close());

  it.runIf(run)(
    'slows guesses from many addresses to one a minute, and the owner gets in at the next turn',
    async () => {
      clock.fresh();
      const owner = await server.signup();
      await tenFailures([server], owner.email);
      // The 11th guess, from yet another address: refused before any password is checked, and so is the owner.
      await expectThrottled(await signIn(server, owner.email, 'the eleventh guess'));
      await expectThrottled(await signIn(server, owner.email, owner.password));
      // Other accounts are not slowed.
      expect((await signIn(server, uniqueEmail(), 'a wrong password')).status).toBe(401);

      clock.nextTurn();
      expect((await signIn(server, owner.email, owner.password)).status).toBe(200);
      // A success lifts it: the next wrong password is an ordinary 401, and so are nine more.
      for (let i = 0; i < maxFailures - 1; i++)
        expect((await signIn(server, owner.email, 'wrong again')).status).toBe(401);
    },
  );

  it.runIf(run)(
    'gives one attempt a minute for as long as the guesses go on, never locking the account for good',
    async () => {
      clock.fresh();
      const owner = await server.signup();
      await tenFailures([server], owner.email);
      for (let minute = 0; minute < 3; minute++) {
        clock.nextTurn();
        // The turn is taken by a wrong guess; every other attempt in that minute is refused, right password included.
        expect((await signIn(server, owner.email, `guess in minute ${minute}`)).status).toBe(401);
        const refused = await signIn(server, owner.email, owner.password);
        expect(refused.status).toBe(429);
        await refused.arrayBuffer();
      }
      clock.nextTurn();
      expect((await signIn(server, owner.email, owner.password)).status).toBe(200);
    },
  );

  it.runIf(run)('is lifted by a password reset', async () => {
    clock.fresh();
    const owner = await server.signup();
    await tenFailures([server], owner.email);
    await expectThrottled(await signIn(server, owner.email, owner.password));
    const token = 'R'.repeat(43);
    await server.services.storage.passwordResets.replace({
      userId: owner.userId,
      tokenHash: createHash('sha256').update(token).digest('hex'),
      createdAt: new Date(clock.now()).toISOString(),
      expiresAt: new Date(clock.now() + 60_000).toISOString(),
    });
    const reset = await server.send(
      'POST',
      '/api/v1/auth/password-reset/confirm',
      { token, new_password: 'a password found again' },
      { headers: { 'x-forwarded-for': newAddress() } },
    );
    expect(reset.status).toBe(204);
    // In the same minute: no turn to wait for.
    expect((await signIn(server, owner.email, 'a password found again')).status).toBe(200);
  });

  it.runIf(run)('treats an email without an account the same, so a 429 tells nothing', async () => {
    clock.fresh();
    const nobody = uniqueEmail();
    await tenFailures([server], nobody);
    await expectThrottled(await signIn(server, nobody, 'the eleventh guess'));
    // Spelled otherwise, it is the same account.
    await expectThrottled(await signIn(server, ` ${nobody.toUpperCase()}`, 'another guess'));
  });

  it.runIf(run)(
    'counts wrong passwords given by a signed-in session too (a stolen session cannot guess faster)',
    async () => {
      clock.fresh();
      const owner: SignedUp = await server.signup();
      const change = (current: string) =>
        server.send(
          'POST',
          '/api/v1/auth/password',
          { current_password: current, new_password: 'a brand new pass phrase' },
          { session: owner.token },
        );
      for (let i = 0; i < maxFailures; i++) expect((await change(`wrong guess ${i}`)).status).toBe(401);
      await expectThrottled(await change(owner.password));
      await expectThrottled(await signIn(server, owner.email, owner.password));
      clock.nextTurn();
      expect((await change(owner.password)).status).toBe(204);
    },
  );
});

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl)
  console.warn('Redis tests skipped: set TEST_REDIS_URL (for example redis://127.0.0.1:6379) to run them.');

describe.each(testDatabases())(
  'the sign-in throttle shared through Redis by two servers ($database)',
  ({ database, run }) => {
    const runs = run && Boolean(redisUrl);
    let first: TestServer;
    let second: TestServer;
    let closeRedis: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      if (!runs) return;
      const redis = await openRedisThrottleStores(redisUrl!, createLogger('silent'));
      closeRedis = () => redis.close();
      first = await startTestServer({
        database,
        releases: 'none',
        clock,
        config: strict,
        throttleStores: redis.stores,
      });
      // A second instance on the same database and the same Redis.
      second = await startTestServer({
        releases: 'none',
        clock,
        throttleStores: redis.stores,
        config: { ...strict, databaseUrl: first.services.config.databaseUrl },
      });
    });
    afterAll(async () => {
      await second?.close();
      await first?.close();
      await closeRedis?.();
    });

    it.runIf(runs)(
      'counts failures on either instance, refuses on both, and lets the owner in at the next turn on either',
      async () => {
        clock.fresh();
        const owner = await first.signup();
        await tenFailures([first, second], owner.email);
        await expectThrottled(await signIn(first, owner.email, 'the eleventh guess'));
        await expectThrottled(await signIn(second, owner.email, owner.password));
        clock.nextTurn();
        // One turn for both instances: whichever is asked first takes it.
        expect((await signIn(second, owner.email, owner.password)).status).toBe(200);
        expect((await signIn(first, owner.email, 'wrong once more')).status).toBe(401);
      },
    );
  },
);

describe('the sign-in throttle while Redis does not answer', () => {
  it('fails open, like the quotas: sign-ins are not throttled, and the right password gets in', async () => {
    const away = await openRedisThrottleStores(`redis://127.0.0.1:${await closedPort()}`, createLogger('silent'));
    const server = await startTestServer({ releases: 'none', clock, config: strict, throttleStores: away.stores });
    try {
      clock.fresh();
      const owner = await server.signup();
      await tenFailures([server], owner.email);
      expect((await signIn(server, owner.email, 'the eleventh guess')).status).toBe(401);
      expect((await signIn(server, owner.email, owner.password)).status).toBe(200);
    } finally {
      await server.close();
      await away.close();
    }
  });
});
