import { LRUCache } from 'lru-cache';
import type { Coding, CompressedPrefix } from './compression.js';
import { FrequencySketch } from './frequency-sketch.js';

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
  before: string;
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

/** An answer from a body as sent, split at its `generated_at` when it ends with one. */
export function answerOf(stamp: number, body: string, headers: Answer['headers']): Answer {
  const at = body.lastIndexOf(generatedAtKey);
  const end = at + generatedAtKey.length + timestampLength;
  const split =
    at !== -1 && body.length === end + 3 && body.endsWith('"}}')
      ? { before: body.slice(0, at + generatedAtKey.length), after: body.slice(end) }
      : { before: body, after: '' };
  return { stamp, headers, ...split, contentLength: Buffer.byteLength(body), compressed: {} };
}

/**
 * An answer given once, as it was just made: its body is sent whole (its `generated_at` is already now), with
 * nothing split or copied. Only an answer the cache keeps is split (`answerOf`), to be given again later.
 */
export function freshAnswer(stamp: number, body: string, headers: Answer['headers']): Answer {
  return { stamp, headers, before: body, after: '', contentLength: Buffer.byteLength(body), compressed: {} };
}

/** The body of an answer given at `now`. */
export function bodyAt(answer: Answer, now: number): string {
  return answer.before + endingAt(answer, now);
}

/** What follows `before` in the body of an answer given at `now`. */
export function endingAt(answer: Answer, now: number): string {
  return answer.after === '' ? '' : new Date(now).toISOString() + answer.after;
}

export interface AnswerCacheLimits {
  /** Answers kept at most. */
  maxAnswers: number;
  /** Characters of answers kept at most (V8 keeps ASCII text at a byte a character). */
  maxChars: number;
}

/**
 * Answers to repeated public reads, by request target, for the catalogue generation they were read in.
 *
 * What is kept is decided by how often each URL is asked for (TinyLFU): a URL is kept from its second request
 * on, and once the cache is full, only when it is asked for more often than the answer that would make room
 * for it. A crawl or a walk through thousands of pages, each asked for once per round, then costs a sketch
 * update per request instead of an answer built, kept and evicted unread; and what the cache holds stays put
 * instead of being churned by it (measured with `pnpm bench -- --distinct`).
 */
export class AnswerCache {
  private readonly answers: LRUCache<string, Answer>;
  private readonly frequencies: FrequencySketch;
  /** The catalogue generation the kept answers belong to; a new one starts empty. */
  private generation: number | undefined;

  constructor(limits: AnswerCacheLimits = { maxAnswers: 2_000, maxChars: 8 * 1024 * 1024 }) {
    this.answers = new LRUCache<string, Answer>({
      max: limits.maxAnswers,
      maxSize: limits.maxChars,
      // Counted uncompressed: the compressed forms it may gain later are a fraction of that (a sixth to a tenth
      // of JSON, measured), so the bound holds within about a third.
      sizeCalculation: (answer, key) => this.sizeOf(answer, key),
    });
    this.frequencies = new FrequencySketch(limits.maxAnswers);
  }

  /** The answer kept for `key` in generation `stamp`; counts the request either way. */
  lookup(key: string, stamp: number): Answer | undefined {
    this.frequencies.increment(key);
    if (stamp !== this.generation) {
      this.answers.clear();
      this.generation = stamp;
      return undefined;
    }
    return this.answers.get(key);
  }

  /**
   * Whether an answer for `key`, just looked up and missed, is worth keeping: its URL was asked for before this
   * request, and, when the cache is full, more often than the answer that would make room for it. (Before this
   * request, not counting it: in a round robin every candidate would otherwise look one request more popular
   * than the least recently used answer, and replace it.)
   */
  admits(key: string, answer: Pick<Answer, 'before' | 'after'>): boolean {
    const before = this.frequencies.frequency(key) - 1;
    if (before < 1) return false;
    // Room for it without evicting anything, by count and by size alike.
    const size = this.sizeOf(answer, key);
    if (this.answers.size < this.answers.max && this.answers.calculatedSize + size <= this.answers.maxSize) return true;
    const victim = this.answers.rkeys().next();
    return victim.done === true || before > this.frequencies.frequency(victim.value);
  }

  /** Keeps an answer read in the current generation (one read in an older one is dropped). */
  keep(key: string, answer: Answer): void {
    if (answer.stamp === this.generation) this.answers.set(key, answer);
  }

  private sizeOf(answer: Pick<Answer, 'before' | 'after'>, key: string): number {
    return answer.before.length + answer.after.length + key.length;
  }

  get size(): number {
    return this.answers.size;
  }
}
