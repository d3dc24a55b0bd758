import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { SessionRecord, SessionStore } from '../storage/interface.js';
import { hashSecret, newId } from './api-keys.js';

/** The idle expiry is moved at most this often per session: one write a minute, however busy the session. */
const sessionExtendIntervalMs = 60_000;
/**
 * How long this instance reuses a session it found in the database. Signing out here drops it at once; signing
 * out through another instance reaches this one within this bound (as a revoked key does within KEY_CACHE_TTL).
 * A busy session would otherwise cost a database round trip per request: less than half the throughput on
 * PostgreSQL (bench/RESULTS.md).
 */
const sessionReuseMs = 1_000;
/** At most this many sessions are kept for reuse; the oldest make room. */
const maxReusedSessions = 10_000;

interface ReusedSession {
  session: SessionRecord;
  /** Until when (clock time) it may be reused: the reuse bound or its own end, whichever comes first. */
  reusableUntil: number;
}

export interface SessionLifetimes {
  idleTtlMs: number;
  absoluteTtlMs: number;
}

/** When a session ends unless it is used: the earlier of its idle and absolute expiry. */
export function sessionExpiresAt(session: SessionRecord): string {
  return session.idleExpiresAt < session.absoluteExpiresAt ? session.idleExpiresAt : session.absoluteExpiresAt;
}

/**
 * Sessions (SPEC §4): a 256-bit random token that only its holder has (we keep its SHA-256), an idle expiry
 * that slides with use and an absolute one that does not.
 */
export class SessionService {
  /** Sessions found lately, by token hash. */
  private readonly reused = new Map<string, ReusedSession>();

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly lifetimes: SessionLifetimes,
  ) {}

  /** A new session for a user, not yet stored (signup stores it in the same transaction as the account). */
  mint(userId: string): { token: string; session: SessionRecord } {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const absolute = now + this.lifetimes.absoluteTtlMs;
    const session: SessionRecord = {
      id: newId('ses'),
      userId,
      tokenHash: hashSecret(token),
      createdAt: new Date(now).toISOString(),
      lastSeenAt: new Date(now).toISOString(),
      idleExpiresAt: new Date(Math.min(now + this.lifetimes.idleTtlMs, absolute)).toISOString(),
      absoluteExpiresAt: new Date(absolute).toISOString(),
    };
    return { token, session };
  }

  async start(userId: string): Promise<{ token: string; session: SessionRecord }> {
    const minted = this.mint(userId);
    await this.store.insert(minted.session);
    return minted;
  }

  /**
   * The live session a token belongs to, its idle expiry moved forward when a minute has passed since it was
   * last moved; undefined for an unknown or ended session (an ended one is deleted on the way). A session found
   * in the database within the last second (`sessionReuseMs`) is taken from memory, up to its own end.
   */
  async resume(token: string): Promise<{ session: SessionRecord; extended: boolean } | undefined> {
    const tokenHash = hashSecret(token);
    const reused = this.reused.get(tokenHash);
    if (reused && this.clock.now() < reused.reusableUntil) return { session: reused.session, extended: false };
    this.reused.delete(tokenHash);

    const session = await this.store.findByTokenHash(tokenHash);
    if (!session) return undefined;
    const now = this.clock.now();
    if (Date.parse(sessionExpiresAt(session)) <= now) {
      await this.store.delete(session.id);
      return undefined;
    }
    if (now - Date.parse(session.lastSeenAt) < sessionExtendIntervalMs) {
      this.reuse(session, now);
      return { session, extended: false };
    }
    const lastSeenAt = new Date(now).toISOString();
    const idle = Math.min(now + this.lifetimes.idleTtlMs, Date.parse(session.absoluteExpiresAt));
    const idleExpiresAt = new Date(idle).toISOString();
    // Gone meanwhile (signed out elsewhere): the token is no longer good.
    if (!(await this.store.extend(session.id, lastSeenAt, idleExpiresAt))) return undefined;
    const extended = { ...session, lastSeenAt, idleExpiresAt };
    this.reuse(extended, now);
    return { session: extended, extended: true };
  }

  /** Signs a session out: its row is deleted, and this instance stops reusing it at once. */
  end(session: SessionRecord): Promise<void> {
    this.reused.delete(session.tokenHash);
    return this.store.delete(session.id);
  }

  private reuse(session: SessionRecord, now: number): void {
    if (this.reused.size >= maxReusedSessions) {
      const oldest = this.reused.keys().next();
      if (!oldest.done) this.reused.delete(oldest.value);
    }
    const reusableUntil = Math.min(now + sessionReuseMs, Date.parse(sessionExpiresAt(session)));
    this.reused.set(session.tokenHash, { session, reusableUntil });
  }

  /**
   * Drops ended sessions, one user's (on sign-in) or everyone's (the server's periodic sweep), so that the table
   * does not grow with abandoned ones; returns how many.
   */
  sweep(userId?: string): Promise<number> {
    return this.store.deleteExpired(new Date(this.clock.now()).toISOString(), userId);
  }
}
