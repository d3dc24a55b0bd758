import { randomBytes } from 'node:crypto';
import { limits, passwordResetTokenParameter, webAppPaths } from '@releases/contract';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import { hashSecret } from '../kernel/crypto.js';
import { describeMailError, type Mailer } from '../mail/mailer.js';
import { passwordResetMail } from '../mail/password-reset-mail.js';
import type { AccountStore, PasswordResetStore, UserRecord } from '../db/interface.js';
import type { AccountService } from './accounts.js';
import type { PasswordHasher } from './passwords.js';
import type { SessionService } from './sessions.js';

const lifetimeMs = limits.passwordResetLifetimeMinutes * 60_000;
/**
 * At most this many requests wait for their lookup, token and mail. Past it a request is dropped (and a warning
 * logged): a flood of requests from many addresses must not grow memory without bound. Each address is held to
 * the sign-in quota already.
 */
const maxPending = 1_000;

export interface PasswordResetDeps {
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
 * Asking for a reset answers at once, the same for every email: the lookup, the token and the mail happen
 * afterwards, in the background, so neither the answer nor its timing says whether an account has the email.
 * A token appears in the mail only (and, without SMTP outside production, in one log line): never in an error.
 */
export class PasswordResets {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: PasswordResetDeps) {}

  /** Queues the reset of whichever account has `email`, if any, to run after the request is answered. */
  request(email: string): void {
    if (this.pending.size >= maxPending) {
      this.deps.logger.warn('too many password resets are waiting to be sent; this request was dropped');
      return;
    }
    // setImmediate: after the answer is written, so the answer's timing is the same whatever follows.
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.deliver(email))
      .catch((error: unknown) =>
        this.deps.logger.error({ err: describeMailError(error) }, 'a password reset could not be sent'),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Resolves when every queued reset has been sent or has failed (tests, and shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  private async deliver(email: string): Promise<void> {
    const user = await this.deps.users.findUserByEmail(email);
    if (!user) return;
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.resets.replace({
      userId: user.id,
      tokenHash: hashSecret(token),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + lifetimeMs).toISOString(),
    });
    const link = `${this.deps.publicUrl}${webAppPaths.resetPassword}#${passwordResetTokenParameter}=${token}`;
    if (this.deps.mailer) {
      await this.deps.mailer.send(passwordResetMail(user.email, link));
    } else if (this.deps.environment !== 'production') {
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
