import { ProblemSchema, ReleaseListQuerySchema } from '@releases/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

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
