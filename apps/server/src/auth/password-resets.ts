import { randomBytes } from 'node:crypto';
import { limits, passwordResetTokenParameter, webAppPaths } from '@releases/contract';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import { hashSecret } from '../kernel/crypto.js';
import { OutageLog } from '../kernel/outage-log.js';
import { StorageConflictError } from '../db/errors.js';
import { describeMailError, type Mail, type Mailer } from '../mail/mailer.js';
import { passwordResetMail } from '../mail/password-reset-mail.js';
import type { AccountStore, PasswordResetStore, UserRecord } from '../db/interface.js';
import type { AccountService } from './accounts.js';
import type { PasswordHasher } from './passwords.js';
import type { SessionService } from './sessions.js';

const lifetimeMs = limits.passwordResetLifetimeMinutes * 60_000;
/** A mail the mail server did not take is tried again after 1 s, then 2, 4... at most every 30 s. */
const firstRetryMs = 1_000;
const maxRetryMs = 30_000;

/** A reset asked for: its email, when its link expires, and where it stands. */
interface PendingReset {
  email: string;
  expiresAt: number;
  /** The account, once looked up (only known accounts get a mail). */
  userId?: string;
  /** The step running now (lookup, or one attempt at the mail). */
  attempt: Promise<void> | undefined;
  /** The next attempt at the mail, waiting. */
  retry?: NodeJS.Timeout;
}
/**
 * At most this many requests wait for their lookup, token and mail (and its retries). Past it a request is
 * dropped (and a warning logged): a flood of requests from many addresses must not grow memory without bound.
 * Each address is held to the sign-in quota already.
 */
const maxPending = 1_000;

export interface PasswordResetDeps {
  /** Resolves when the database answers (`Storage.ping`): asked before every request is accepted. */
  ping: () => Promise<void>;
  passwords: PasswordHasher;
  users: AccountStore;
  resets: PasswordResetStore;
  accounts: AccountService;
  sessions: SessionService;
  /** Undefined without `SMTP_URL`: the link is then logged in development, and nothing is sent. */
  mailer: Mailer | undefined;
  /** `PUBLIC_URL`, which the link in the mail starts with. */
  publicUrl: string;
  /** `production` never logs the link. */
  environment: 'development' | 'production' | 'test';
  clock: Clock;
  logger: Logger;
}

export type ConfirmResult =
  | { reset: true; user: UserRecord }
  | { reset: false; invalid: 'token' }
  | { reset: false; invalid: 'new_password'; problem: string };

/**
 * Password reset by mail (SPEC §3.7). A token is 256 random bits in base64url; only its SHA-256 is stored, for
 * 30 minutes, one per user (a newer request replaces the older), and it is used up by the reset.
 *
 * Asking for a reset answers the same for every email, in the same time: after one query that shows the
 * database answers (a 503 for every email alike while it does not, issue 30), and before anything is looked up.
 * The lookup, the token and the mail happen afterwards, in the background. A mail that cannot be sent (the mail
 * server refuses, hangs or is down) is kept and tried again, a little later each time, until its link expires:
 * it goes out once the mail server answers. A newer request for the same account replaces a mail still
 * waiting, whose link no longer works. A token appears in the mail only (and, without SMTP outside production,
 * in one log line): never in an error.
 */
export class PasswordResets {
  /** Resets asked for and not yet mailed, nor given up. */
  private readonly waiting = new Set<PendingReset>();
  /** The one waiting mail per account (a newer request replaces it). */
  private readonly mailFor = new Map<string, PendingReset>();
  private closed = false;
  /** Logged once when the mail server stops answering, once a minute meanwhile, once when it answers again. */
  private readonly outages: OutageLog;

  constructor(private readonly deps: PasswordResetDeps) {
    this.outages = new OutageLog('the mail server (SMTP)', deps.logger);
  }

  /**
   * Queues the reset of whichever account has `email`, if any, to run after the request is answered; throws
   * `StorageUnavailableError` (a 503) when the database does not answer, whatever the email.
   */
  async request(email: string): Promise<void> {
    await this.deps.ping();
    if (this.waiting.size >= maxPending) {
      this.deps.logger.warn('too many password resets are waiting to be sent; this request was dropped');
      return;
    }
    const pending: PendingReset = { email, expiresAt: this.deps.clock.now() + lifetimeMs, attempt: undefined };
    this.waiting.add(pending);
    this.run(pending, async () => {
      // After the answer is written, so the answer's timing is the same whatever follows.
      await new Promise((resolve) => setImmediate(resolve));
      await this.prepare(pending);
    });
  }

  /** Resolves when no reset is being looked up or mailed right now (tests; retries waiting on a timer do not count). */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.waiting].map((pending) => pending.attempt).filter((attempt) => attempt !== undefined);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** Stops retrying (shutdown): mails still waiting are given up, and said so. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    for (const pending of this.waiting) clearTimeout(pending.retry);
    if (this.waiting.size > 0) {
      this.deps.logger.warn(
        { resets: this.waiting.size },
        'shutting down: password reset mails not sent yet are given up',
      );
    }
    this.waiting.clear();
    this.mailFor.clear();
  }

  /** Runs one step of a reset, keeping it as the reset's attempt while it runs; a failed step is logged. */
  private run(pending: PendingReset, step: () => Promise<void>): void {
    if (this.closed || !this.waiting.has(pending)) return;
    pending.attempt = step()
      .catch((error: unknown) => {
        this.forget(pending);
        // The account was deleted meanwhile: as for an unknown email, nothing is sent.
        if (error instanceof StorageConflictError) return;
        this.deps.logger.error({ err: describeMailError(error) }, 'a password reset could not be prepared');
      })
      .finally(() => (pending.attempt = undefined));
  }

  /** The lookup and the token; then the mail, or for an unknown email nothing at all. */
  private async prepare(pending: PendingReset): Promise<void> {
    const user = await this.deps.users.findUserByEmail(pending.email);
    if (!user) return this.forget(pending);
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.resets.replace({
      userId: user.id,
      tokenHash: hashSecret(token),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(pending.expiresAt).toISOString(),
    });
    const link = `${this.deps.publicUrl}${webAppPaths.resetPassword}#${passwordResetTokenParameter}=${token}`;
    const mailer = this.deps.mailer;
    if (!mailer) {
      this.forget(pending);
      if (this.deps.environment !== 'production') {
        // Development without a mail server: this line is the only place the link appears.
        this.deps.logger.info(
          { userId: user.id, resetLink: link },
          'password reset link (SMTP_URL is not set: not mailed)',
        );
      } else {
        this.deps.logger.warn(
          { userId: user.id },
          'a password reset was asked for, but SMTP_URL is not set: no mail was sent',
        );
      }
      return;
    }
    // The older request's mail, if it still waits, holds a link that no longer works.
    const older = this.mailFor.get(user.id);
    if (older) this.forget(older);
    pending.userId = user.id;
    this.mailFor.set(user.id, pending);
    const mail = passwordResetMail(user.email, link);
    await this.send(pending, mailer, mail, 0);
  }

  /** One attempt at the mail; on failure the next after a pause that doubles, until the link expires. */
  private async send(pending: PendingReset, mailer: Mailer, mail: Mail, failures: number): Promise<void> {
    try {
      await mailer.send(mail);
      this.outages.answered();
      this.forget(pending);
    } catch (error) {
      this.outages.failed(describeMailError(error));
      const pause = Math.min(firstRetryMs * 2 ** failures, maxRetryMs);
      if (this.deps.clock.now() + pause >= pending.expiresAt) {
        this.forget(pending);
        this.deps.logger.warn(
          { userId: pending.userId },
          'a password reset mail could not be sent before its link expired',
        );
        return;
      }
      pending.retry = setTimeout(() => this.run(pending, () => this.send(pending, mailer, mail, failures + 1)), pause);
      pending.retry.unref();
    }
  }

  private forget(pending: PendingReset): void {
    clearTimeout(pending.retry);
    this.waiting.delete(pending);
    if (pending.userId !== undefined && this.mailFor.get(pending.userId) === pending)
      this.mailFor.delete(pending.userId);
  }

  /**
   * Sets a new password with a reset token: the token is used up, the password set and every session of the
   * user ended, in one transaction. An unknown, used or expired token is `invalid: 'token'`; a new password the
   * policy refuses leaves the token usable.
   */
  async confirm(token: string, newPassword: string): Promise<ConfirmResult> {
    const tokenHash = hashSecret(token);
    const now = new Date(this.deps.clock.now()).toISOString();
    // Checked before the (slow, memory-hungry) password hash, so that guessing tokens costs us nothing.
    const userId = await this.deps.resets.findLive(tokenHash, now);
    const user = userId === undefined ? undefined : await this.deps.users.findUserById(userId);
    if (!user) return { reset: false, invalid: 'token' };
    const problem = this.deps.accounts.newPasswordProblem(newPassword, user.email);
    if (problem !== undefined) return { reset: false, invalid: 'new_password', problem };
    const passwordHash = await this.deps.passwords.hash(newPassword);
    const consumed = await this.deps.resets.consume(tokenHash, now, passwordHash, this.deps.sessions.forget);
    // Used by a concurrent confirmation meanwhile: one of them wins, the other is told the token is spent.
    return consumed === undefined ? { reset: false, invalid: 'token' } : { reset: true, user };
  }
}
