import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { limits, releaseFilterParameters, type SortOrder } from '@releases/contract';
import type { ReleasePosition } from './query.js';
import { BoundedCache } from '../kernel/bounded-cache.js';
import type { FilterKeys } from './filters.js';

/**
 * Page cursors: opaque to clients, tamper-evident, and bound to the filters, search and sort they were made with.
 *
 * Wire form: `base64url(JSON [version, fingerprint, release_date, id, tier?])` + `.` +
 * `base64url(HMAC-SHA256)[0..16 bytes]`; the tier only under `sort=relevance`.
 * The MAC (keyed by a server secret shared by every instance) catches any change; the fingerprint of the
 * normalized filters, search and sort tells "altered" apart from "made for another query", so each gets its own
 * message.
 */
const cursorVersion = 1;
const macBytes = 16;

export type CursorError = 'malformed' | 'tampered' | 'mismatch';

export class CursorDecodeError extends Error {
  override readonly name = 'CursorDecodeError';
  constructor(readonly reason: CursorError) {
    super(reason);
  }
}

export interface CursorQuery {
  filters: FilterKeys;
  /** The search as stored text (`Search.text`), so that spellings search treats alike share cursors. */
  search: string | undefined;
  sort: SortOrder;
}

/**
 * A short, stable digest of what a cursor is bound to: the sort, each filter's keys in the contract's order of
 * filters, and the search. Values are already lowercase and distinct.
 */
function canonicalQuery(query: CursorQuery): string {
  return JSON.stringify([
    query.sort,
    ...releaseFilterParameters.map((name) => [...query.filters[name]].sort()),
    ...(query.search === undefined ? [] : [query.search]),
  ]);
}

export class CursorCodec {
  /**
   * Digests of recent queries. Every page of a walk is the same query, so a walk hashes it once, not twice a
   * page (the cursor read, and the next one made).
   */
  private readonly fingerprints = new BoundedCache<string, string>({ max: 1_000 });

  constructor(private readonly secret: string) {}

  private fingerprint(query: CursorQuery): string {
    const canonical = canonicalQuery(query);
    return this.fingerprints.getOrSet(canonical, () =>
      createHash('sha256').update(canonical).digest('base64url').slice(0, 11),
    );
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, macBytes);
  }

  encode(position: ReleasePosition, query: CursorQuery): string {
    const fields = [cursorVersion, this.fingerprint(query), position.releaseDate, position.id];
    const json = JSON.stringify(position.tier === undefined ? fields : [...fields, position.tier]);
    const payload = Buffer.from(json).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** Decodes a cursor for this query, or throws `CursorDecodeError`. Never throws anything else. */
  decode(cursor: string, query: CursorQuery): ReleasePosition {
    const known = this.verify(cursor);
    if (known.fingerprint !== this.fingerprint(query)) throw new CursorDecodeError('mismatch');
    return known.position;
  }

  /** Checks a cursor's MAC and shape. */
  private verify(cursor: string): { fingerprint: string; position: ReleasePosition } {
    if (cursor.length > limits.maxCursorLength) throw new CursorDecodeError('malformed');
    const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
    if (!match) throw new CursorDecodeError('malformed');
    const [, payload, mac] = match as unknown as [string, string, string];
    // Compare the encoded text, not decoded bytes: base64url lets several strings decode to the same bytes,
    // and only the one we issued is a valid cursor.
    const given = Buffer.from(mac);
    const expected = Buffer.from(this.mac(payload).toString('base64url'));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new CursorDecodeError('tampered');

    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw new CursorDecodeError('malformed');
    }
    if (
      !Array.isArray(decoded) ||
      (decoded.length !== 4 && decoded.length !== 5) ||
      decoded[0] !== cursorVersion ||
      typeof decoded[1] !== 'string' ||
      typeof decoded[2] !== 'string' ||
      typeof decoded[3] !== 'string' ||
      (decoded.length === 5 && !Number.isInteger(decoded[4]))
    ) {
      throw new CursorDecodeError('malformed');
    }
    const tier = decoded.length === 5 ? (decoded[4] as number) : undefined;
    return { fingerprint: decoded[1], position: { tier, releaseDate: decoded[2], id: decoded[3] } };
  }
}
