import { BoundedCache } from '../kernel/bounded-cache.js';
import type { Clock } from '../kernel/clock.js';
import type { ApiKeyRecord } from '../db/interface.js';

/** Keys whose verification is remembered at once, at most (the least recently used go first). */
const maxCachedKeys = 10_000;

/** A verification as remembered: the key's record, or null for a key nobody issued. */
type Remembered = { record: ApiKeyRecord | null };

/**
 * What both key managers remember of a verification, by SHA-256 of the key (never the key), for at most
 * `KEY_CACHE_TTL` and never past the key's own expiry: the bound within which a revocation through another
 * instance is seen here (SPEC §4). A revocation through this instance is seen at once (`forget`), also by a
 * verification that was under way when it happened: `keep` refuses what was read before the last revocation.
 */
export class VerificationCache {
  private readonly entries: BoundedCache<string, Remembered>;
  /** Moves on every revocation (`forget`), so a verification that raced one keeps nothing. */
  private revocations = 0;

  constructor(private readonly options: { ttlMs: number; clock: Clock }) {
    this.entries = new BoundedCache({ max: maxCachedKeys, ttlMs: options.ttlMs, now: () => options.clock.now() });
  }

  /** What is remembered of the key with this hash: its record, null (unknown), or undefined (ask again). */
  recall(keyHash: string): ApiKeyRecord | null | undefined {
    return this.entries.get(keyHash)?.record;
  }

  /** Taken before a verification asks the database or the key manager, and handed back to `keep`. */
  ticket(): number {
    return this.revocations;
  }

  /**
   * Remembers a verification made with `ticket`, unless a key was revoked since or nothing may be remembered
   * (`KEY_CACHE_TTL=0`); for at most the TTL, and a key that will expire only until it does, so that a pass is
   * never reused past it (an expired key's record is refused by the managers whenever it is recalled).
   */
  keep(keyHash: string, record: ApiKeyRecord | null, ticket: number): void {
    if (ticket !== this.revocations || this.options.ttlMs <= 0) return;
    const untilExpiry = record?.expiresAt ? Date.parse(record.expiresAt) - this.options.clock.now() : Infinity;
    const ttlMs = untilExpiry > 0 ? Math.min(this.options.ttlMs, untilExpiry) : this.options.ttlMs;
    this.entries.set(keyHash, { record }, { ttlMs });
  }

  /** The key `id` was revoked here: nothing remembered of it is used again. */
  forget(id: string): void {
    this.revocations++;
    this.entries.deleteWhere(({ record }) => record?.id === id);
  }
}
