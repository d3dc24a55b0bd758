import { ReleaseListQuerySchema, type ReleaseListQuery } from '@releases/contract';
import type { ParsedUrlQuery } from 'node:querystring';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpProblem } from '../kernel/http-problem.js';
import { queryValidator } from './replayable.js';

/** What the contract's schema says of a query: its output, or the problem's `errors`. */
function contractSays(raw: ParsedUrlQuery): unknown {
  const result = ReleaseListQuerySchema.safeParse(raw);
  return result.success ? result.data : 'problem';
}

function validatorSays(validate: (raw: ParsedUrlQuery) => ReleaseListQuery, raw: ParsedUrlQuery): unknown {
  try {
    return validate(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpProblem);
    return 'problem';
  }
}

const query = (fields: Record<string, string | string[]>): ParsedUrlQuery =>
  Object.assign(Object.create(null) as ParsedUrlQuery, fields);

describe('the list query validator (what a walk shares is validated once)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers every query as the contract does, in any order, whatever was remembered before', () => {
    const queries = [
      query({ limit: '20' }),
      query({ limit: '20', cursor: 'abc.def' }),
      query({ limit: '20', cursor: '  abc.def  ' }),
      query({ limit: '20', cursor: '' }),
      query({ limit: '20', cursor: '   ' }),
      query({ limit: '20', cursor: ['a.b', 'c.d'] }),
      query({ limit: '500', cursor: 'abc.def' }),
      query({ limit: '20', cursor: 'abc.def', unknown: 'x' }),
      query({ sort: 'relevance', cursor: 'abc.def' }),
      query({ sort: 'relevance', q: 'miku', cursor: 'abc.def' }),
      query({ genres: 'rock,pop', languages: 'ja', cursor: 'x.y' }),
      query({ genres: 'rock,pop', languages: 'not a tag!', cursor: 'x.y' }),
      query({ q: ' miku ', limit: '5', cursor: 'z.z' }),
    ];
    const validate = queryValidator<ReleaseListQuery>(ReleaseListQuerySchema);
    // Twice over, forwards and backwards: each query meets whatever the earlier ones left remembered.
    for (const raw of [...queries, ...[...queries].reverse(), ...queries]) {
      expect(validatorSays(validate, raw)).toEqual(contractSays(raw));
    }
  });

  it("validates only the cursor of a walk's later pages", () => {
    const validate = queryValidator<ReleaseListQuery>(ReleaseListQuerySchema);
    const wholeParses = vi.spyOn(ReleaseListQuerySchema, 'safeParse');
    expect(validate(query({ genres: 'rock', limit: '50' })).cursor).toBeUndefined();
    expect(wholeParses).toHaveBeenCalledTimes(1);
    for (const cursor of ['one.page', 'two.page', 'three.page']) {
      expect(validate(query({ genres: 'rock', limit: '50', cursor }))).toEqual(
        contractSays(query({ genres: 'rock', limit: '50', cursor })),
      );
    }
    // Three pages validated, and three contract parses made by this test's own comparisons only.
    expect(wholeParses).toHaveBeenCalledTimes(4);
  });

  it('validates a query without a paging parameter whole, every time', () => {
    const validate = queryValidator<{ limit: number }>(ReleaseListQuerySchema.innerType().pick({ limit: true }));
    expect(validate(query({ limit: '7' }))).toEqual({ limit: 7 });
    expect(() => validate(query({ limit: '0' }))).toThrow(HttpProblem);
  });
});
