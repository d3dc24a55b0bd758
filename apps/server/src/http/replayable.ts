import { isZodType, type AppRoute, type ServerInferRequest } from '@ts-rest/core';
import type { ParsedUrlQuery } from 'node:querystring';
import { ZodEffects, ZodObject, type ZodTypeAny } from 'zod';
import { BoundedCache } from '../kernel/bounded-cache.js';
import { validationProblem } from '../kernel/http-problem.js';
import type { JsonReply } from './json-reply.js';
import { malformedQueryProblem } from './query-string.js';

/** The raw inputs of a request: its query string and path parameters, as parsed from the URL. */
interface RawInput {
  query: ParsedUrlQuery;
  params: Record<string, string>;
}

/**
 * A route the contract marks `replayable`, as the fast path (`http/fast-path.ts`) answers it: its input is
 * validated with the contract's own schemas, as ts-rest validates it for the Express route, then given to the
 * same function that route calls. Each route module makes its own (`routes/release.ts`, `routes/facets.ts`).
 */
export interface ReplayableRoute {
  /** The contract's route, as the route table holds it. */
  route: AppRoute;
  /** The answer; throws the same 400 problem as the Express route for an invalid query or path parameter. */
  answer(input: RawInput): Promise<JsonReply>;
}

function validated<T>(schema: unknown, raw: unknown): T {
  if (!isZodType(schema)) return raw as T;
  const result = schema.safeParse(raw);
  if (!result.success) throw validationProblem(result.error, 'parameter');
  return result.data as T;
}

/** The parameter that differs from page to page of a walk, when a route's query has one. */
const pagingParameter = 'cursor';

/**
 * A query validator that validates what a walk's pages share once. The pages of a walk (an SDK's `for await`, a
 * crawler) differ only in their cursor, and the contract's parse of the rest was a twentieth of a page read from
 * the database (about 17 µs of 350). So a valid query is remembered without its cursor; a later query with the
 * same rest validates only its cursor, with the contract's own schema for that parameter, and takes the rest
 * as it was. Anything else (a new rest, a repeated or invalid cursor) is validated whole, as before, so every
 * problem is the contract's, reported exactly as before.
 */
export function queryValidator<T extends object>(schema: unknown): (raw: ParsedUrlQuery) => T {
  const pages = pageParameterSchema(schema);
  if (!pages) return (raw) => validated<T>(schema, raw);
  // The walks under way at once are far fewer than this.
  const valid = new BoundedCache<string, T>({ max: maxRememberedQueries });
  return (raw) => {
    const cursor = raw[pagingParameter];
    if (Array.isArray(cursor)) return validated<T>(schema, raw);
    const key = JSON.stringify({ ...raw, [pagingParameter]: undefined });
    const rest = valid.get(key);
    const page = rest && pages.safeParse(cursor);
    if (rest && page?.success) return { ...rest, [pagingParameter]: page.data as unknown };
    const query = validated<T>(schema, raw);
    // Shared by every later page of the walk: frozen, so that a handler changing its query fails loudly instead
    // of changing the next page's.
    for (const value of Object.values(query)) if (Array.isArray(value)) Object.freeze(value);
    valid.set(key, Object.freeze(query));
    return query;
  };
}

const maxRememberedQueries = 1_000;

/** The schema of the paging parameter in a query schema (`z.object(...)`, possibly refined), if it has one. */
function pageParameterSchema(schema: unknown): ZodTypeAny | undefined {
  let object: unknown = schema;
  while (object instanceof ZodEffects) object = object.innerType();
  return object instanceof ZodObject ? (object.shape as Record<string, ZodTypeAny>)[pagingParameter] : undefined;
}

/** The route `route` answered by `answer`, its input validated with the route's own schemas. */
export function replayable<R extends AppRoute>(
  route: R,
  answer: (input: {
    query: ServerInferRequest<R>['query'];
    params: ServerInferRequest<R>['params'];
  }) => Promise<JsonReply>,
): ReplayableRoute {
  const validQuery = queryValidator<ServerInferRequest<R>['query']>(route.query);
  return {
    route,
    answer: (input) => {
      const malformed = malformedQueryProblem(input.query);
      if (malformed) throw malformed;
      return answer({
        // Path parameters first, as ts-rest checks them: a malformed id is its 400 whatever the query says.
        params: validated(route.pathParams, input.params),
        query: validQuery(input.query),
      });
    },
  };
}
