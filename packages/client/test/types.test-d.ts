import type { FacetsResponseSchema, ProblemSchema, ReleaseListQuery, ReleaseSchema } from '@releases/contract';
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  type APIError,
  type RateLimitError,
  ReleasesClient,
  type Facets,
  type Problem,
  type Release,
  type ReleaseListParams,
  type ReleasePage,
  type WithResponse,
} from '../src/index.js';

describe('public types equal the contract', () => {
  it('Release is the contract release', () => {
    expectTypeOf<Release>().toEqualTypeOf<z.infer<typeof ReleaseSchema>>();
  });

  it('Facets is the contract facets payload', () => {
    expectTypeOf<Facets>().toEqualTypeOf<z.infer<typeof FacetsResponseSchema>['data']>();
  });

  it('Problem carries the contract problem fields', () => {
    type ContractProblem = z.infer<typeof ProblemSchema>;
    expectTypeOf<Problem['type']>().toEqualTypeOf<ContractProblem['type']>();
    expectTypeOf<Problem['status']>().toEqualTypeOf<ContractProblem['status']>();
    expectTypeOf<Problem['detail']>().toEqualTypeOf<ContractProblem['detail']>();
  });

  it('list parameters use the wire names of the contract query', () => {
    expectTypeOf<keyof ReleaseListParams>().toEqualTypeOf<keyof ReleaseListQuery>();
    expectTypeOf<NonNullable<ReleaseListParams['sort']>>().toEqualTypeOf<ReleaseListQuery['sort']>();
  });
});

describe('the client surface', () => {
  const client = new ReleasesClient();

  it('resolves resources to their data', () => {
    expectTypeOf(client.health.check()).resolves.toEqualTypeOf<'OK'>();
    expectTypeOf(client.releases.get('rel_x')).resolves.toEqualTypeOf<Release>();
    expectTypeOf(client.facets.list()).resolves.toEqualTypeOf<Facets>();
    expectTypeOf(client.releases.list()).resolves.toEqualTypeOf<ReleasePage>();
    expectTypeOf(client.facets.list().withResponse()).resolves.toEqualTypeOf<WithResponse<Facets>>();
  });

  it('iterates releases and pages', () => {
    expectTypeOf(client.releases.list()).toMatchTypeOf<AsyncIterable<Release>>();
    expectTypeOf(client.releases.list().pages()).toMatchTypeOf<AsyncIterable<ReleasePage>>();
    expectTypeOf(client.releases.list().toArray.bind(null)).parameter(0).toEqualTypeOf<{ max: number }>();
  });

  it('takes arrays for filters and rejects other shapes', () => {
    expectTypeOf(client.releases.list).toBeCallableWith({ vocaloid_banks: ['Hatsune Miku'], limit: 50 });
    // @ts-expect-error filters are arrays of strings, not comma-separated strings
    void client.releases.list({ genres: 'rock,pop' });
    // @ts-expect-error there is no offset: pagination is by cursor
    void client.releases.list({ offset: 20 });
  });

  it('types errors', () => {
    expectTypeOf<RateLimitError>().toMatchTypeOf<APIError>();
    expectTypeOf<RateLimitError['retryAfterMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<APIError['problem']>().toEqualTypeOf<Problem | undefined>();
  });
});
