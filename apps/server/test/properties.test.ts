import { ProblemSchema, ReleaseListQuerySchema } from '@releases/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, CursorDecodeError, type CursorQuery } from '../src/catalogue/cursor.js';
import { startTestServer, type TestServer } from './harness.js';

const parameterNames = [
  'vocaloid_banks',
  'genres',
  'languages',
  'limit',
  'cursor',
  'sort',
  'page',
  '__proto__',
  'constructor',
  '',
];
const parameterValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.constantFrom(
    '',
    ',',
    ',,,',
    'ja',
    'EN',
    'zh-Hans',
    'Hatsune Miku',
    '-release_date',
    'release_date',
    '0',
    '100',
    '101',
    '1e2',
    '-1',
    'null',
    '[]',
    '%',
    '%zz',
    'a%00b',
  ),
  fc.array(fc.constantFrom('rock', 'jazz', ' ', 'x'.repeat(70)), { maxLength: 30 }).map((values) => values.join(',')),
);
const queryString = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...parameterNames), fc.string({ maxLength: 10 })), parameterValue), {
    maxLength: 6,
  })
  .map((pairs) => pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&'));
/** Raw, possibly broken percent-encoding straight onto the wire. */
const rawQueryString = fc.stringMatching(/^[a-z_=&%,0-9A-F.~+-]{0,60}$/);

describe('the query parser', () => {
  it('never throws: it parses or returns issues', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(...parameterNames),
          fc.oneof(parameterValue, fc.array(parameterValue, { maxLength: 3 })),
        ),
        (query) => {
          const result = ReleaseListQuerySchema.safeParse(query);
          if (result.success) {
            expect(result.data.limit).toBeGreaterThanOrEqual(1);
            expect(result.data.limit).toBeLessThanOrEqual(100);
            for (const values of [result.data.vocaloid_banks, result.data.genres, result.data.languages]) {
              expect(values.length).toBeLessThanOrEqual(20);
              for (const value of values) expect(value).toBe(value.trim());
              for (const value of values) expect(value).not.toBe('');
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('arbitrary query strings over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ releases: 'none' });
  });
  afterAll(() => server.close());

  it('never give a 5xx, and every 4xx is a valid problem document', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(queryString, rawQueryString), async (query) => {
        const response = await server.get(`/api/v1/release?${query}`);
        expect(response.status, query).toBeLessThan(500);
        if (response.status >= 400) {
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          const problem = ProblemSchema.parse(await response.json());
          expect(problem.status).toBe(response.status);
          expect(problem.type).toMatch(/\/problems\/(invalid-request|invalid-cursor)$/);
        } else {
          await response.arrayBuffer();
        }
      }),
      { numRuns: 300 },
    );
  });
});

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
