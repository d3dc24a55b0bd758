import { contract, type RouteMetadata } from '@releases/contract';
import { isZodType, type AppRoute, type ServerInferRequest } from '@ts-rest/core';
import type { ParsedUrlQuery } from 'node:querystring';
import { validationProblem } from '../problems.js';
import type { FacetsReads } from './facets.js';
import type { JsonReply } from './json-text.js';
import type { ReleaseReads } from './release.js';

/** The raw inputs of a request: its query string and path parameters, as parsed from the URL. */
interface RawInput {
  query: ParsedUrlQuery;
  params: Record<string, string>;
}

/**
 * A route the contract marks `replayable`, as the fast path (`http/fast-path.ts`) answers it: its input is
 * validated with the contract's own schemas, as ts-rest validates it for the Express route, then given to the
 * same function that route calls.
 */
export interface ReplayableRoute {
  route: AppRoute;
  metadata: RouteMetadata;
  /** The answer; throws the same 400 problem as the Express route for an invalid query or path parameter. */
  answer(input: RawInput): Promise<JsonReply>;
}

function validated<T>(schema: unknown, raw: unknown): T {
  if (!isZodType(schema)) return raw as T;
  const result = schema.safeParse(raw);
  if (!result.success) throw validationProblem(result.error, 'parameter');
  return result.data as T;
}

function replayable<R extends AppRoute>(
  route: R,
  answer: (input: {
    query: ServerInferRequest<R>['query'];
    params: ServerInferRequest<R>['params'];
  }) => Promise<JsonReply>,
): ReplayableRoute {
  return {
    route,
    metadata: route.metadata as RouteMetadata,
    answer: (input) =>
      answer({
        // Path parameters first, as ts-rest checks them: a malformed id is its 400 whatever the query says.
        params: validated(route.pathParams, input.params),
        query: validated(route.query, input.query),
      }),
  };
}

/** Every replayable route of the contract, bound to the answers its Express route gives. */
export function replayableRoutes(reads: { release: ReleaseReads; facets: FacetsReads }): ReplayableRoute[] {
  return [
    replayable(contract.release.list, ({ query }) => reads.release.list(query)),
    replayable(contract.release.get, ({ params }) => reads.release.get(params)),
    replayable(contract.facets.list, ({ query }) => reads.facets.list(query)),
  ];
}
