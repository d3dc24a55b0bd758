import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CursorCodec, CursorDecodeError, type CursorQuery } from './cursor.js';

describe('the cursor codec', () => {
  const codec = new CursorCodec('a-test-secret-that-is-long-enough-to-sign');
  const key = fc.stringMatching(/^[a-z0-9 -]{1,12}$/);
  const query: fc.Arbitrary<CursorQuery> = fc.record({
    filters: fc.record({
      vocaloid_banks: fc.uniqueArray(key, { maxLength: 3 }),
      genres: fc.uniqueArray(key, { maxLength: 3 }),
      languages: fc.uniqueArray(key, { maxLength: 2 }),
    }),
    search: fc.option(
      fc.string({ minLength: 1, maxLength: 40 }).map((q) => ` ${q}`),
      { nil: undefined },
    ),
    sort: fc.constantFrom('-release_date' as const, 'release_date' as const, 'relevance' as const),
  });
  const position = fc.record({
    tier: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    releaseDate: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    id: fc.stringMatching(/^rel_[A-Za-z0-9_-]{1,30}$/),
  });

  it('round-trips any position for the query it was made for', () => {
    fc.assert(
      fc.property(position, query, (p, q) => {
        expect(codec.decode(codec.encode(p, q), q)).toEqual(p);
      }),
    );
  });

  it('rejects any change to a cursor', () => {
    fc.assert(
      fc.property(
        position,
        query,
        fc.nat(),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'),
        (p, q, at, replacement) => {
          const cursor = codec.encode(p, q);
          const index = at % cursor.length;
          fc.pre(cursor[index] !== replacement);
          const changed = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
          expect(() => codec.decode(changed, q)).toThrow(CursorDecodeError);
        },
      ),
    );
  });

  /** What a cursor is bound to (SPEC §3.1, §3.6): the sort, each filter's values as a set, and the search. */
  const boundTo = (q: CursorQuery) =>
    JSON.stringify([q.sort, ...Object.values(q.filters).map((v: string[]) => [...v].sort()), q.search ?? null]);

  it('rejects a cursor made for another query or by another secret', () => {
    fc.assert(
      fc.property(position, query, query, (p, q1, q2) => {
        const cursor = codec.encode(p, q1);
        if (boundTo(q1) !== boundTo(q2)) expect(() => codec.decode(cursor, q2)).toThrow(CursorDecodeError);
        else expect(codec.decode(cursor, q2)).toEqual(p);
        expect(() => new CursorCodec('another-secret-entirely-different-from-it').decode(cursor, q1)).toThrow(
          CursorDecodeError,
        );
      }),
    );
  });

  it('rejects a cursor made for the same filters and sort with another search, or none', () => {
    const otherSearch = fc.option(
      fc.string({ minLength: 1, maxLength: 40 }).map((q) => ` ${q}`),
      { nil: undefined },
    );
    fc.assert(
      fc.property(position, query, otherSearch, (p, q, search) => {
        fc.pre(search !== q.search);
        const cursor = codec.encode(p, q);
        expect(() => codec.decode(cursor, { ...q, search })).toThrow(CursorDecodeError);
      }),
    );
  });

  it('throws only CursorDecodeError on arbitrary input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.base64String().map((s) => `${s}.${s}`),
        ),
        query,
        (text, q) => {
          try {
            codec.decode(text, q);
            expect.unreachable('decoded garbage');
          } catch (error) {
            expect(error).toBeInstanceOf(CursorDecodeError);
          }
        },
      ),
    );
  });
});
