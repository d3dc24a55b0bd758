import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerCache, answerOf, bodyAt } from './answer-cache.js';
import { FrequencySketch } from './frequency-sketch.js';
import { LastAsked } from './last-asked.js';

describe('FrequencySketch', () => {
  it('never counts a key less often than it was asked for (until it halves)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 300 }), (keys) => {
        const sketch = new FrequencySketch(1_000);
        const counts = new Map<string, number>();
        for (const key of keys) {
          sketch.increment(key);
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        for (const [key, count] of counts) expect(sketch.frequency(key)).toBeGreaterThanOrEqual(Math.min(count, 15));
      }),
    );
  });

  it('forgets old popularity: counts halve after ten times its capacity of increments', () => {
    const sketch = new FrequencySketch(10);
    for (let i = 0; i < 8; i++) sketch.increment('popular');
    expect(sketch.frequency('popular')).toBe(8);
    for (let i = 0; i < 100; i++) sketch.increment(`other ${i}`);
    expect(sketch.frequency('popular')).toBeLessThanOrEqual(4);
  });
});

describe('LastAsked', () => {
  it('never says a key was asked for longer ago than it was, and knows a key never asked for', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 2_000 }), (keys) => {
        // Small, so that keys share slots.
        const table = new LastAsked(2);
        const last = new Map<string, number>();
        keys.forEach((key, now) => {
          const distance = table.swap(key, now);
          const at = last.get(key);
          expect(distance).toBeLessThanOrEqual(at === undefined ? Infinity : now - at);
          last.set(key, now);
        });
      }),
    );
    const table = new LastAsked(100);
    expect(table.swap('/a', 5)).toBe(Infinity);
    expect(table.swap('/a', 12)).toBe(7);
    expect(table.swap('/b', 12)).toBe(Infinity);
  });
});

describe('AnswerCache', () => {
  const answer = (stamp: number) => answerOf(stamp, '{"success":true,"data":{"x":1}}', []);

  it('keeps an answer from its URL’s second request on, not its first', () => {
    const cache = new AnswerCache({ maxAnswers: 10, maxBytes: 1_000_000 });
    expect(cache.lookup('/a', 1)).toBeUndefined();
    expect(cache.admits('/a', answer(1).contentLength)).toBe(false);
    expect(cache.lookup('/a', 1)).toBeUndefined();
    expect(cache.admits('/a', answer(1).contentLength)).toBe(true);
    cache.keep('/a', answer(1));
    expect(cache.lookup('/a', 1)).toBeDefined();
  });

  it('is not churned by a round robin over more URLs than it holds', () => {
    const cache = new AnswerCache({ maxAnswers: 100, maxBytes: 10_000_000 });
    const urls = Array.from({ length: 1_000 }, (_, i) => `/page/${i}`);
    let kept = 0;
    let hits = 0;
    for (let round = 0; round < 5; round++) {
      for (const url of urls) {
        if (cache.lookup(url, 1)) hits++;
        else if (cache.admits(url, answer(1).contentLength)) {
          cache.keep(url, answer(1));
          kept++;
        }
      }
    }
    // It fills once and then mostly holds what it has (the sketch's halving moves a few), so the rounds after
    // that find about a tenth of the URLs. A cache that kept every second request would keep thousands and
    // find none.
    expect(kept).toBeGreaterThanOrEqual(100);
    expect(kept).toBeLessThanOrEqual(120);
    expect(hits).toBeGreaterThanOrEqual(250);
  });

  /** Asks for each URL of `urls` in turn, `rounds` times, keeping what the cache admits; counts per round. */
  function roundRobin(cache: AnswerCache, urls: string[], rounds: number): Array<{ hits: number; kept: number }> {
    return Array.from({ length: rounds }, () => {
      let hits = 0;
      let kept = 0;
      for (const url of urls) {
        if (cache.lookup(url, 1)) hits++;
        else if (cache.admits(url, answer(1).contentLength)) {
          cache.keep(url, answer(1));
          kept++;
        }
      }
      return { hits, kept };
    });
  }

  it('follows the URLs people ask for when they move on to others, within about two rounds', () => {
    const cache = new AnswerCache({ maxAnswers: 100, maxBytes: 10_000_000 });
    const before = Array.from({ length: 300 }, (_, i) => `/before/${i}`);
    const after = Array.from({ length: 300 }, (_, i) => `/after/${i}`);
    roundRobin(cache, before, 6);
    const rounds = roundRobin(cache, after, 5);
    // The old answers, asked for five or six times each, are not replaced on counts until the sketch halves
    // them away (every 1,000 requests here, three rounds of the new URLs, and twice over); they are on being
    // idle, once they have gone unasked for twice as long as a round of the new URLs.
    expect(rounds[0]!.hits).toBe(0);
    expect(rounds[2]!.hits + rounds[3]!.hits + rounds[4]!.hits).toBeGreaterThanOrEqual(270);
    // And then it holds what it has again: about a cache's worth kept in all, not a round's.
    expect(rounds.reduce((sum, round) => sum + round.kept, 0)).toBeLessThanOrEqual(130);
  });

  it('does not let a URL asked for twice in a row replace an answer people ask for', () => {
    const cache = new AnswerCache({ maxAnswers: 100, maxBytes: 10_000_000 });
    const used = Array.from({ length: 100 }, (_, i) => `/used/${i}`);
    roundRobin(cache, used, 3);
    for (let i = 0; i < 50; i++) {
      const url = `/twice/${i}`;
      expect(cache.lookup(url, 1)).toBeUndefined();
      expect(cache.admits(url, answer(1).contentLength)).toBe(false);
      expect(cache.lookup(url, 1)).toBeUndefined();
      expect(cache.admits(url, answer(1).contentLength)).toBe(false);
    }
    expect(roundRobin(cache, used, 1)[0]!.hits).toBe(100);
  });

  it('is not churned either when its size, not its count, is what fills it', () => {
    // Room for about 20 answers by size, though 100 by count.
    const cache = new AnswerCache({ maxAnswers: 100, maxBytes: 20 * 40 });
    const urls = Array.from({ length: 300 }, (_, i) => `/p/${i}`);
    let kept = 0;
    for (let round = 0; round < 5; round++) {
      for (const url of urls) {
        if (!cache.lookup(url, 1) && cache.admits(url, answer(1).contentLength)) {
          cache.keep(url, answer(1));
          kept++;
        }
      }
    }
    expect(kept).toBeLessThanOrEqual(30);
  });

  it('counts an answer in the bytes it is kept as (UTF-8), not in characters', () => {
    // 100 kana and kanji: 300 bytes in UTF-8, 100 characters in a JavaScript string.
    const body = `{"success":true,"data":{"title":"${'初音ミク'.repeat(25)}"}}`;
    const kept = answerOf(1, body, []);
    expect(Buffer.isBuffer(kept.before)).toBe(true);
    expect(kept.before.length).toBe(Buffer.byteLength(body));
    // In memory of its own, not a slice of Node's shared 8 KB pool, which it would keep whole.
    expect((kept.before as Buffer).buffer.byteLength).toBe(kept.before.length);
    // Room for two such answers counted in bytes (each with its two-character URL), for five in characters.
    const cache = new AnswerCache({ maxAnswers: 10, maxBytes: 2 * (kept.contentLength + 2) + 20 });
    for (const url of ['/a', '/b', '/c']) {
      cache.lookup(url, 1);
      cache.keep(url, answerOf(1, body, []));
    }
    expect(['/a', '/b', '/c'].filter((url) => cache.lookup(url, 1) !== undefined)).toHaveLength(2);
  });

  it('starts over when the catalogue moves on, and drops an answer read in an older generation', () => {
    const cache = new AnswerCache({ maxAnswers: 10, maxBytes: 1_000_000 });
    cache.lookup('/a', 1);
    cache.lookup('/a', 1);
    cache.keep('/a', answer(1));
    expect(cache.lookup('/a', 2)).toBeUndefined();
    cache.keep('/a', answer(1));
    expect(cache.lookup('/a', 2)).toBeUndefined();
  });

  it.each([
    ['ASCII', '[]'],
    ['Japanese', '[{"title":"ハッピーシンセサイザ","artist":"EasyPop"}]'],
  ])('splits a body (%s) at its generated_at, and gives it back with the time of asking', (_, releases) => {
    const body = `{"success":true,"data":{"releases":${releases},"pagination":"","generated_at":"2026-01-01T00:00:00.000Z"}}`;
    const kept = answerOf(1, body, []);
    expect(kept.contentLength).toBe(Buffer.byteLength(body));
    expect(bodyAt(kept, Date.parse('2027-02-03T04:05:06.789Z'))).toBe(
      body.replace('2026-01-01T00:00:00.000Z', '2027-02-03T04:05:06.789Z'),
    );
  });

  it('keeps a body without a generated_at whole', () => {
    const noTime = answerOf(1, '{"success":true,"data":{"id":"rel_x","title":"\\"generated_at\\":\\""}}', []);
    expect(bodyAt(noTime, 0)).toBe(noTime.before.toString());
  });
});
