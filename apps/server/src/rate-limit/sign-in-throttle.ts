import { createHash } from 'node:crypto';
import { limits } from '@releases/contract';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import type { HttpProblem } from '../kernel/http-problem.js';
import { CounterStoreUnavailableError, type CounterStore } from './interface.js';
import { rateLimitedProblem } from './quotas.js';

const { failures: maxFailures, windowMinutes, turnSeconds } = limits.signInThrottle;
const windowMs = windowMinutes * 60_000;
const turnMs = turnSeconds * 1000;

/** Where the throttle counts: failed sign-ins per account and window, and turns taken per account and minute. */
export interface SignInThrottleStores {
  /** Windows of at least `failureStoreWindowMs` (the previous window is read during the current one). */
  failures: CounterStore;
  /** Windows of at least `turnStoreWindowMs`. */
  turns: CounterStore;
}

/** How long the stores must keep a count: the failures of the previous window are still read in the current one. */
export const failureStoreWindowMs = 2 * windowMs;
export const turnStoreWindowMs = turnMs;

/** Whether a sign-in may check its password now. */
export type ThrottleDecision = { go: true; turn: boolean } | { go: false; retryAfterSeconds: number };

const throttledDetail = `There have been too many failed sign-ins to this account lately: it can be tried once a minute, from anywhere, until a sign-in succeeds or its password is reset.`;

/**
 * The per-account sign-in throttle (SPEC §3.7): after 10 failed sign-ins to one account within 15 minutes,
 * further sign-ins to it are allowed once a minute, from any address, until one succeeds or the password is
 * reset. The per-address quota alone lets an attacker with many addresses guess on; this bounds the guesses
 * against one account, wherever they come from, while its owner still gets in at the next turn with the right
 * password (a wrong one never locks an account for good).
 *
 * Counted by the account's email (normalized, then hashed: no address in the store), known or not, so a 429
 * says nothing about whether an account exists. Windows and turns are slots of the injected clock: failures in
 * 15-minute slots, the current and the previous one together (so at least the last 15 minutes count, at most
 * the last 30; a throttled account whose turns keep failing stays throttled), and one turn per minute of the
 * clock. The counts live in `CounterStore`s, this process's memory or Redis shared by every instance; while Redis
 * does not answer, each instance counts in its own memory (`fallback-counter-store.ts`), so guessing at an
 * account stays throttled per instance. A store that cannot count at all throttles nothing.
 *
 * Also applied where a signed-in session proves the password (changing it, deleting the account), so a stolen
 * session cannot be used to guess the password faster than a sign-in could.
 */
export class SignInThrottle {
  constructor(
    private readonly stores: SignInThrottleStores,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Before a password is checked: whether it may be now, taking the minute's turn when the account is throttled. */
  async admit(email: string): Promise<ThrottleDecision> {
    const account = accountKey(email);
    const now = this.clock.now();
    const failures = await this.failedLately(account, now);
    if (failures < maxFailures) return { go: true, turn: false };
    const minute = Math.floor(now / turnMs);
    const turn = await this.safely(() => this.stores.turns.increment(`${account}:${minute}`));
    if (turn === undefined || turn.hits === 1) return { go: true, turn: true };
    return { go: false, retryAfterSeconds: Math.max(1, Math.ceil(((minute + 1) * turnMs - now) / 1000)) };
  }

  /** The 429 for a refused decision. */
  refusal(decision: Extract<ThrottleDecision, { go: false }>): HttpProblem {
    return rateLimitedProblem(decision.retryAfterSeconds, throttledDetail);
  }

  /** After a wrong password (or an unknown email). */
  async failed(email: string, decision: Extract<ThrottleDecision, { go: true }>): Promise<void> {
    const account = accountKey(email);
    const now = this.clock.now();
    const slot = Math.floor(now / windowMs);
    const current = await this.safely(() => this.stores.failures.increment(`${account}:${slot}`));
    if (current === undefined) return;
    const previous = await this.safely(() => this.stores.failures.get(`${account}:${slot - 1}`));
    // The failure that throttles the account takes this minute's turn: the next attempt waits for the next one.
    if (!decision.turn && current.hits + (previous?.hits ?? 0) >= maxFailures) {
      await this.safely(() => this.stores.turns.increment(`${account}:${Math.floor(now / turnMs)}`));
    }
  }

  /** After a right password, or a password reset: the account's failures are forgotten. */
  async clear(email: string): Promise<void> {
    const account = accountKey(email);
    const slot = Math.floor(this.clock.now() / windowMs);
    await this.safely(() => this.stores.failures.reset(`${account}:${slot}`));
    await this.safely(() => this.stores.failures.reset(`${account}:${slot - 1}`));
  }

  private async failedLately(account: string, now: number): Promise<number> {
    const slot = Math.floor(now / windowMs);
    const current = await this.safely(() => this.stores.failures.get(`${account}:${slot}`));
    const previous = await this.safely(() => this.stores.failures.get(`${account}:${slot - 1}`));
    return (current?.hits ?? 0) + (previous?.hits ?? 0);
  }

  /** Fails open (SPEC §4): a store that cannot count throttles nothing. */
  private async safely<T>(work: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof CounterStoreUnavailableError)) this.logger.error({ err: error }, 'sign-in throttle error');
      return undefined;
    }
  }
}

/** The account's key in the stores: its normalized email, hashed, so the stores hold no addresses. */
function accountKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 32);
}
