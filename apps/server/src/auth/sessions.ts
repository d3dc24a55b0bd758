import { randomBytes } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import { hashSecret, newId } from '../kernel/crypto.js';
import { limits } from '@releases/contract';
import type { EndingSessions, SessionRecord, SessionStore } from '../db/interface.js';
import { BoundedCache } from '../kernel/bounded-cache.js';

/** The idle expiry is moved at most this often per session: one write a minute, however busy the session. */
const sessionExtendIntervalMs = 60_000;
/**
 * How long this instance reuses a session it found in the database. Signing out here ends it at once; signing
 * out through another instance reaches this one within this bound (as a revoked key does within KEY_CACHE_TTL).
 * A busy session would otherwise cost a database round trip per request: less than half the throughput on
 * PostgreSQL (bench/RESULTS.md).
 */
const sessionReuseMs = 1_000;
/** At most this many sessions are kept for reuse; the least recently used make room. */
const maxReusedSessions = 10_000;
/**
 * How long this instance remembers that it ended a session: far longer than any read of it may still be on
 * its way back from the database (`DATABASE_STATEMENT_TIMEOUT`), and a session once ended never returns.
 */
const endedSessionMemoryMs = 10 * 60_000;
const maxEndedSessions = 100_000;

interface ReusedSession {
  session: SessionRecord;
  /** Until when (clock time) it may be reused: the reuse bound or its own end, whichever comes first. */
  reusableUntil: number;
}

export interface SessionLifetimes {
  idleTtlMs: number;
  absoluteTtlMs: number;
}

/**
 * What a session keeps of the `User-Agent` it was started with: its first characters, or null. Control
 * characters are dropped (HTTP parsers refuse most of them already; PostgreSQL refuses NUL in text outright).
 */
export function userAgentOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  // eslint-disable-next-line no-control-regex -- dropping control characters is the point
  const kept = header.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  return kept === '' ? null : kept.slice(0, limits.maxUserAgentLength);
}

/** When a session ends unless it is used: the earlier of its idle and absolute expiry. */
export function sessionExpiresAt(session: SessionRecord): string {
  return session.idleExpiresAt < session.absoluteExpiresAt ? session.idleExpiresAt : session.absoluteExpiresAt;
}

/**
 * Sessions (SPEC §4): a 256-bit random token that only its holder has (we keep its SHA-256), an idle expiry
 * that slides with use and an absolute one that does not.
 *
 * Ending a session takes effect on this instance for every request that arrives after the answer that ended
 * it, also for requests whose read of the session was already on its way back from the database (SPEC §3.7):
 * each ended session is remembered by id before its row goes, and a session read from the database is
 * checked against that memory before it is used or kept for reuse.
 */
export class SessionService {
  /** Sessions found lately, by token hash. */
  private readonly reused = new BoundedCache<string, ReusedSession>({ max: maxReusedSessions });
  /** Ids of sessions this instance ended. */
  private readonly ended = new BoundedCache<string, true>({ max: maxEndedSessions, ttlMs: endedSessionMemoryMs });

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly lifetimes: SessionLifetimes,
  ) {}

  /** A new session for a user, not yet stored (signup stores it in the same transaction as the account). */
  mint(userId: string, userAgent: string | null): { token: string; session: SessionRecord } {
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
      userAgent,
    };
    return { token, session };
  }

  async start(userId: string, userAgent: string | null): Promise<{ token: string; session: SessionRecord }> {
    const minted = this.mint(userId, userAgent);
    await this.store.insert(minted.session);
    return minted;
  }

  /**
   * The live session a token belongs to, its idle expiry moved forward when a minute has passed since it was
   * last moved; undefined for an unknown or ended session (an expired one is deleted on the way). A session
   * found in the database within the last second (`sessionReuseMs`) is taken from memory, up to its own end.
   */
  async resume(token: string): Promise<{ session: SessionRecord; extended: boolean } | undefined> {
    const tokenHash = hashSecret(token);
    const reused = this.reused.get(tokenHash);
    if (reused && this.clock.now() < reused.reusableUntil) return { session: reused.session, extended: false };
    this.reused.delete(tokenHash);

    const session = await this.store.findByTokenHash(tokenHash);
    if (!session || this.ended.has(session.id)) return undefined;
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
    // Gone meanwhile (signed out elsewhere, or here while this request waited): the token is no longer good.
    if (!(await this.store.extend(session.id, lastSeenAt, idleExpiresAt)) || this.ended.has(session.id)) {
      return undefined;
    }
    const extended = { ...session, lastSeenAt, idleExpiresAt };
    this.reuse(extended, now);
    return { session: extended, extended: true };
  }

  /** Signs a session out: its row is deleted, and this instance refuses it from now on. */
  async end(session: SessionRecord): Promise<void> {
    this.forget([session]);
    await this.store.delete(session.id);
  }

  /**
   * Refuses sessions on this instance from now on: their ids are remembered as ended and their reuse entries
   * dropped. Every way of ending sessions calls it before their rows go: `end` above, and the storage
   * transactions that delete several (signing out elsewhere, a new password, a reset, a deleted account) call
   * it with the rows they delete, before they commit. Pass it to them as their `EndingSessions`.
   */
  readonly forget: EndingSessions = (sessions) => {
    for (const session of sessions) {
      this.ended.set(session.id, true);
      this.reused.delete(session.tokenHash);
    }
  };

  /** A user's live sessions, newest first (at most the newest `limits.maxListedSessions`). */
  list(userId: string): Promise<SessionRecord[]> {
    return this.store.listLive(userId, new Date(this.clock.now()).toISOString(), limits.maxListedSessions);
  }

  /** Ends one of a user's sessions by id; false when the user has no such session. */
  async endOne(userId: string, sessionId: string): Promise<boolean> {
    return (await this.store.deleteOfUser(userId, { only: sessionId }, this.forget)) > 0;
  }

  /** Ends every session of a user but one (signing out everywhere else); returns how many ended. */
  endOthers(userId: string, keptSessionId: string): Promise<number> {
    return this.store.deleteOfUser(userId, { allBut: keptSessionId }, this.forget);
  }

  /** Ends every session of a user (the CLI); returns how many ended. */
  endAll(userId: string): Promise<number> {
    return this.store.deleteOfUser(userId, 'all', this.forget);
  }

  private reuse(session: SessionRecord, now: number): void {
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
