import { BoundedCache } from '../kernel/bounded-cache.js';
import type { Coding, CompressedPrefix } from './compression.js';
import { FrequencySketch } from './frequency-sketch.js';
import { LastAsked } from './last-asked.js';

/**
 * A 200 answer to a replayable route (`metadata.replayable`), as the fast path (`fast-path.ts`) keeps it: its
 * body split where `generated_at` goes, and the headers that belong to the answer itself (`Content-Type`, the
 * next page's `Link`). Everything per request (admission's headers, the request id, CORS for the caller's
 * origin) is added when it is given.
 */
export interface Answer {
  /** The catalogue generation it was read in (`CatalogueReads.cacheStamp`). */
  stamp: number;
  headers: ReadonlyArray<readonly [string, string]>;
  /**
   * The body up to its time: UTF-8 bytes in an answer made to be given again (`answerOf`), so that giving it
   * encodes nothing and keeping it costs its size in bytes, outside the JavaScript heap; the text itself in an
   * answer given once (`freshAnswer`).
   */
  before: Buffer | string;
  /** What follows the time in the body; empty when the body has no `generated_at`. */
  after: string;
  contentLength: number;
  /**
   * `before`, compressed once per coding when first asked for in it (`compression.ts`); each response then
   * appends its own time and closing braces uncompressed.
   */
  compressed: Partial<Record<Coding, CompressedPrefix>>;
}

/** `generated_at` is always `YYYY-MM-DDTHH:mm:ss.sssZ`: 24 ASCII characters, the last member of `data`. */
const generatedAtKey = '"generated_at":"';
const timestampLength = 24;

/**
 * An answer to be given again (or compressed), from a body as sent: split at its `generated_at` when it ends
 * with one, the part before it as UTF-8 bytes. `contentLength` is the body's, when the caller has it.
 */
export function answerOf(
  stamp: number,
  body: string,
  headers: Answer['headers'],
  contentLength = Buffer.byteLength(body),
): Answer {
  const at = body.lastIndexOf(generatedAtKey);
  const end = at + generatedAtKey.length + timestampLength;
  const timed = at !== -1 && body.length === end + 3 && body.endsWith('"}}');
  // What follows `before` (the time and `"}}`) is ASCII, so its bytes are its characters.
  const before = timed ? body.slice(0, at + generatedAtKey.length) : body;
  return {
    stamp,
    headers,
    before: ownBytes(before, contentLength - (body.length - before.length)),
    after: timed ? body.slice(end) : '',
    contentLength,
    compressed: {},
  };
}

/**
 * `text` in UTF-8 (`byteLength` bytes, known to the caller), in memory of its own: `Buffer.from` puts a short
 * text in a shared 8 KB slab, which a kept answer of 1 KB would then hold whole, eight times what the cache
 * counts for it.
 */
function ownBytes(text: string, byteLength: number): Buffer {
  const bytes = Buffer.allocUnsafeSlow(byteLength);
  bytes.write(text);
  return bytes;
}

/**
 * An answer given once, as it was just made: its body is sent whole (its `generated_at` is already now), with
 * nothing split or copied. Only an answer the cache keeps is split (`answerOf`), to be given again later.
 */
export function freshAnswer(
  stamp: number,
  body: string,
  headers: Answer['headers'],
  contentLength = Buffer.byteLength(body),
): Answer {
  return { stamp, headers, before: body, after: '', contentLength, compressed: {} };
}

/** The body of an answer given at `now`. */
export function bodyAt(answer: Answer, now: number): string {
  return answer.before.toString() + endingAt(answer, now);
}

/** What follows `before` in the body of an answer given at `now`. */
export function endingAt(answer: Answer, now: number): string {
  return answer.after === '' ? '' : new Date(now).toISOString() + answer.after;
}

export interface AnswerCacheLimits {
  /** Answers kept at most. */
  maxAnswers: number;
  /** Bytes of answers kept at most: their bodies' UTF-8 and their URLs. */
  maxBytes: number;
}

/**
 * What an answer costs the cache: its body's bytes (the part before the time, kept, is within a few bytes of
 * it; the compressed forms it may gain later are a sixth to a tenth of that, measured, so the bound holds within
 * about a fifth) and its URL's (a request target is ASCII).
 */
function sizeOf(contentLength: number, key: string): number {
  return contentLength + key.length;
}

/** An answer as the cache holds it, with the number of the request that last asked for it. */
interface Kept {
  answer: Answer;
  asked: number;
}

/**
 * Answers to repeated public reads, by request target, for the catalogue generation they were read in.
 *
 * What is kept is decided by how often and how lately each URL is asked for (TinyLFU, with a recency rule). A
 * URL is kept from its second request on; once the cache is full, only when it would replace an answer asked
 * for less often, or one nobody has asked for in a long while and for longer than twice the time since this
 * URL was last asked for. A crawl or a walk through thousands of pages, each asked for once per round, then
 * costs a sketch update per request instead of an answer built, kept and evicted unread, and what the cache
 * holds stays put instead of being churned by it; when the URLs people ask for move on to others, the cache
 * follows within about two rounds of the new ones, instead of waiting for the old counts to halve away
 * (measured with `pnpm bench -- --distinct`, whose families follow one another).
 */
export class AnswerCache {
  private readonly answers: BoundedCache<string, Kept>;
  private readonly frequencies: FrequencySketch;
  private readonly lastAsked: LastAsked;
  /**
   * An answer asked for within this many requests is never replaced for being idle (only for being asked for
   * less often): a URL asked for twice in a row cannot evict what people use.
   */
  private readonly idleAfter: number;
  /** Requests looked up so far: the cache's clock. */
  private requests = 0;
  /** The catalogue generation the kept answers belong to; a new one starts empty. */
  private generation: number | undefined;

  constructor(limits: AnswerCacheLimits = { maxAnswers: 2_000, maxBytes: 16 * 1024 * 1024 }) {
    this.answers = new BoundedCache<string, Kept>({
      max: limits.maxAnswers,
      maxSize: limits.maxBytes,
      sizeOf: (kept, key) => sizeOf(kept.answer.contentLength, key),
    });
    this.frequencies = new FrequencySketch(limits.maxAnswers);
    this.lastAsked = new LastAsked(limits.maxAnswers);
    this.idleAfter = 2 * limits.maxAnswers;
  }

  /** The answer kept for `key` in generation `stamp`; counts the request either way. */
  lookup(key: string, stamp: number): Answer | undefined {
    this.requests++;
    this.frequencies.increment(key);
    if (stamp !== this.generation) {
      this.answers.clear();
      this.generation = stamp;
      return undefined;
    }
    const kept = this.answers.get(key);
    if (kept === undefined) return undefined;
    kept.asked = this.requests;
    return kept.answer;
  }

  /**
   * Whether an answer for `key`, just looked up and missed, is worth keeping: its URL was asked for before this
   * request, and, when the cache is full, it is worth more than the answer that would make room for it (the
   * least recently used): asked for more often (before this request, not counting it: in a round robin every
   * candidate would otherwise look one request more popular than that answer, and replace it), or asked for
   * again sooner than that answer has now gone without being asked for, by twice, once it has been idle for
   * `idleAfter` requests. (In a round robin both are one round, so nothing moves; when the URLs asked for
   * change, the old answers' idle time grows without bound while the new URLs' rounds stay the same.)
   */
  admits(key: string, contentLength: number): boolean {
    // Recorded on misses only (a kept answer records its own hits); a URL whose last requests were hits before
    // it was evicted therefore looks asked for longer ago than it was, which only makes it harder to admit.
    const sinceLastAsked = this.lastAsked.swap(key, this.requests);
    const before = this.frequencies.frequency(key) - 1;
    if (before < 1) return false;
    // Room for it without evicting anything, by count and by size alike.
    if (this.answers.hasRoomFor(sizeOf(contentLength, key))) return true;
    const victim = this.answers.leastRecentKey();
    if (victim === undefined || before > this.frequencies.frequency(victim)) return true;
    const victimIdle = this.requests - this.answers.peek(victim)!.asked;
    return victimIdle > this.idleAfter && 2 * sinceLastAsked < victimIdle;
  }

  /** Keeps an answer read in the current generation (one read in an older one is dropped). */
  keep(key: string, answer: Answer): void {
    if (answer.stamp === this.generation) this.answers.set(key, { answer, asked: this.requests });
  }
}
