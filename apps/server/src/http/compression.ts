import zlib from 'node:zlib';
import compression from 'compression';
import type { RequestHandler } from 'express';
import Negotiator from 'negotiator';
import vary from 'vary';
import { BoundedCache } from '../kernel/bounded-cache.js';

/** The codings this server sends (SPEC §10): Brotli and gzip, chosen by `Accept-Encoding`. */
export type Coding = 'br' | 'gzip';

/** Bodies smaller than this are sent as they are: compressing them saves less than its headers cost. */
export const minCompressedBytes = 1_024;

/**
 * The coding to send a body in, from the request's `Accept-Encoding` (its q-values honoured, Brotli preferred
 * when the client ranks both alike), or undefined for none. Remembered per header value: a few distinct
 * values (one per kind of client) make up nearly every request.
 */
export function codingFor(acceptEncoding: string | undefined): Coding | undefined {
  if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
  const coding = negotiated.getOrSet(acceptEncoding, () => {
    const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as Preferring;
    const chosen = negotiator.encoding(codings, { preferred: codings });
    return chosen === 'br' || chosen === 'gzip' ? chosen : 'identity';
  });
  return coding === 'identity' ? undefined : coding;
}

const codings = ['br', 'gzip'] as const;
/** negotiator 1.x takes the server's preference for ties; its published types predate the option. */
interface Preferring {
  encoding(available: readonly string[], options: { preferred: readonly string[] }): string | undefined;
}
/** The coding chosen for each `Accept-Encoding` lately seen ('identity': none). */
const negotiated = new BoundedCache<string, Coding | 'identity'>({ max: 256 });

/**
 * Dynamic answers are compressed at a low setting: a page of releases is read from the database once per
 * request when it is not kept, and Brotli 5 compresses a 40 KB page in a few hundred microseconds to within
 * 10 % of its best (quality 11 takes tens of milliseconds). Static files are compressed at build, at the best.
 */
const brotliQuality = 5;
const gzipLevel = 6;

/**
 * The compressed form of a body's beginning, flushed to a byte boundary but not ended, so that any ending can
 * be appended without compressing the beginning again. An answer kept by the answer cache has its body split
 * where `generated_at` goes; the part before it is compressed once per coding, and each response appends the
 * few bytes after it (the time and the closing braces) uncompressed (`completed`).
 */
export interface CompressedPrefix {
  coding: Coding;
  bytes: Buffer;
  /** gzip: the CRC-32 of the uncompressed prefix, which the trailer needs for the whole body. */
  crc: number;
  /** The uncompressed prefix's length in bytes. */
  length: number;
}

export function compressPrefix(coding: Coding, prefix: Buffer | string): CompressedPrefix {
  const input = typeof prefix === 'string' ? Buffer.from(prefix) : prefix;
  const bytes =
    coding === 'br'
      ? zlib.brotliCompressSync(input, {
          finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: brotliQuality,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: input.length,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          },
        })
      : zlib.gzipSync(input, { level: gzipLevel, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return { coding, bytes, crc: coding === 'gzip' ? zlib.crc32(input) : 0, length: input.length };
}

/**
 * A whole compressed body: the prefix's bytes, then `suffix` stored uncompressed, then what ends the stream.
 *
 * - gzip (RFC 1951/1952): the prefix ends in a sync flush, so it is byte-aligned; a final stored block holds
 *   the suffix, and the trailer gives the CRC-32 and length of everything.
 * - Brotli (RFC 7932): the prefix ends in a flush, byte-aligned; an uncompressed meta-block holds the suffix,
 *   and an empty last meta-block ends the stream.
 */
export function completed(prefix: CompressedPrefix, suffix: string): Buffer[] {
  const tail = Buffer.from(suffix);
  return prefix.coding === 'gzip' ? [prefix.bytes, ...gzipEnding(prefix, tail)] : [prefix.bytes, ...brotliEnding(tail)];
}

/** The largest suffix `completed` takes: one stored block or one uncompressed meta-block of 65,535 bytes. */
const maxSuffixBytes = 65_535;

function gzipEnding(prefix: CompressedPrefix, tail: Buffer): Buffer[] {
  if (tail.length > maxSuffixBytes) throw new RangeError('suffix too long for one stored block');
  // BFINAL = 1, BTYPE = 00 (stored); the rest of the byte is padding. Then LEN and its ones' complement.
  const header = Buffer.from([
    0x01,
    tail.length & 0xff,
    tail.length >>> 8,
    ~tail.length & 0xff,
    (~tail.length >>> 8) & 0xff,
  ]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32(tail, prefix.crc), 0);
  trailer.writeUInt32LE((prefix.length + tail.length) % 2 ** 32, 4);
  return [header, tail, trailer];
}

function brotliEnding(tail: Buffer): Buffer[] {
  if (tail.length > maxSuffixBytes) throw new RangeError('suffix too long for one meta-block');
  const parts: Buffer[] = [];
  if (tail.length > 0) {
    // ISLAST = 0, MNIBBLES = 4 (coded 0), MLEN - 1 in 16 bits, ISUNCOMPRESSED = 1: 20 bits, padded to 3 bytes.
    const bits = ((tail.length - 1) << 3) | (1 << 19);
    parts.push(Buffer.from([bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff]), tail);
  }
  // ISLAST = 1, ISLASTEMPTY = 1.
  parts.push(Buffer.from([0x03]));
  return parts;
}

/**
 * Compression of what Express answers (SPEC §10): the API's JSON and problem documents, and the server's own
 * HTML pages, when 1 KB or more, by the same rules as the fast path (`codingFor`), through the compression
 * middleware Express maintains. Static files are not compressed here: the web app's are compressed at build,
 * the reference page's assets once at start (`web-app.ts`, `docs-assets.ts`).
 */
export function responseCompression(): RequestHandler {
  return compression({
    threshold: minCompressedBytes,
    level: gzipLevel,
    brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: brotliQuality } },
    filter: (req, res) => {
      if (!compressiblePath(req.path)) return false;
      // Only the codings the fast path sends (the middleware would also deflate); the answer varies either way.
      if (codingFor(req.headers['accept-encoding']) === undefined) {
        vary(res, 'Accept-Encoding');
        return false;
      }
      return compression.filter(req, res);
    },
  });
}

function compressiblePath(path: string): boolean {
  return path.startsWith('/api/') || path === '/docs' || path.startsWith('/problems/');
}
