import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { limits, type SortOrder } from '@releases/contract';
import type { ReleaseFilterKeys, ReleasePosition } from '../storage/interface.js';

/**
 * Page cursors: opaque to clients, tamper-evident, and bound to the filters and sort they were made with.
 *
 * Wire form: `base64url(JSON [version, fingerprint, release_date, id])` + `.` + `base64url(HMAC-SHA256)[0..16 bytes]`.
 * The MAC (keyed by a server secret shared by every instance) catches any change; the fingerprint of the
 * normalized filters and sort tells "altered" apart from "made for another query", so each gets its own message.
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
  filters: ReleaseFilterKeys;
  sort: SortOrder;
}

/** A short, stable digest of what a cursor is bound to. Values are already lowercase and distinct. */
function queryFingerprint(query: CursorQuery): string {
  const canonical = JSON.stringify([
    query.sort,
    [...query.filters.vocaloid_banks].sort(),
    [...query.filters.genres].sort(),
    [...query.filters.languages].sort(),
  ]);
  let fingerprint = fingerprints.get(canonical);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(canonical).digest('base64url').slice(0, 11);
    if (fingerprints.size >= memoSize) fingerprints.delete(fingerprints.keys().next().value!);
    fingerprints.set(canonical, fingerprint);
  }
  return fingerprint;
}

/** Digests of recent queries: a hash per page request was a measurable part of serving one. */
const fingerprints = new Map<string, string>();

/** Recently issued or verified cursors, so a popular page's cursor is signed and checked once, not per request. */
const memoSize = 5_000;

export class CursorCodec {
  private readonly encoded = new Map<string, string>();
  private readonly decoded = new Map<string, { fingerprint: string; position: ReleasePosition }>();

  constructor(private readonly secret: string) {}

  private remember<V>(memo: Map<string, V>, key: string, value: V): V {
    if (memo.size >= memoSize) memo.delete(memo.keys().next().value!);
    memo.set(key, value);
    return value;
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, macBytes);
  }

  encode(position: ReleasePosition, query: CursorQuery): string {
    const json = JSON.stringify([cursorVersion, queryFingerprint(query), position.releaseDate, position.id]);
    const known = this.encoded.get(json);
    if (known) return known;
    const payload = Buffer.from(json).toString('base64url');
    return this.remember(this.encoded, json, `${payload}.${this.mac(payload).toString('base64url')}`);
  }

  /** Decodes a cursor for this query, or throws `CursorDecodeError`. Never throws anything else. */
  decode(cursor: string, query: CursorQuery): ReleasePosition {
    const known = this.decoded.get(cursor) ?? this.verify(cursor);
    if (known.fingerprint !== queryFingerprint(query)) throw new CursorDecodeError('mismatch');
    return known.position;
  }

  /** Checks a cursor's MAC and shape; only cursors that pass are remembered. */
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
      decoded.length !== 4 ||
      decoded[0] !== cursorVersion ||
      typeof decoded[1] !== 'string' ||
      typeof decoded[2] !== 'string' ||
      typeof decoded[3] !== 'string'
    ) {
      throw new CursorDecodeError('malformed');
    }
    return this.remember(this.decoded, cursor, {
      fingerprint: decoded[1],
      position: { releaseDate: decoded[2], id: decoded[3] },
    });
  }
}
