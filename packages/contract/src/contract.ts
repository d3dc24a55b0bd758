import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { apiPaths } from './paths.js';
import { problemKindNames } from './problem-kinds.js';
import { ProblemSchema } from './problem.js';
import {
  FacetsResponseSchema,
  ReleaseIdParamsSchema,
  ReleaseListQuerySchema,
  ReleaseListResponseSchema,
  ReleaseResponseSchema,
} from './release.js';

const c = initContract();

/**
 * An error response. Served as `application/problem+json`; declared as a plain schema because the OpenAPI
 * generator of ts-rest 3.52 drops `otherResponse` bodies (the server's document builder sets the media type).
 */
const problem = ProblemSchema;

/** Problems any operation can answer with. */
const commonProblems = { 429: problem, 500: problem, 503: problem } as const;

/** How the `security` of an operation is declared; the OpenAPI generator reads it from `metadata`. */
export type RouteSecurity = 'none' | 'optional' | 'api-key';
export interface RouteMetadata {
  security: RouteSecurity;
  /** Whether browsers on other origins may call it (CORS). */
  publicRead?: boolean;
}

const metadata = (value: RouteMetadata) => value;

export const contract = c.router(
  {
    release: {
      list: {
        method: 'GET',
        path: apiPaths.releaseList,
        summary: 'List releases',
        description:
          "Releases newest first (or oldest first with `sort=release_date`), filtered by voice bank, genre and language. Values within one filter are OR-ed, different filters are AND-ed, all case-insensitively. Pages are keyset-based: pass `data.pagination` back as `cursor` until it is the empty string. The `Link` header carries the next page's URL too.",
        query: ReleaseListQuerySchema,
        responses: { 200: ReleaseListResponseSchema, 400: problem, 401: problem, ...commonProblems },
        metadata: metadata({ security: 'optional', publicRead: true }),
      },
      get: {
        method: 'GET',
        path: apiPaths.release,
        summary: 'Get one release',
        pathParams: ReleaseIdParamsSchema,
        responses: { 200: ReleaseResponseSchema, 400: problem, 401: problem, 404: problem, ...commonProblems },
        metadata: metadata({ security: 'optional', publicRead: true }),
      },
    },
    facets: {
      list: {
        method: 'GET',
        path: apiPaths.facets,
        summary: 'List filter values',
        description:
          'Every voice bank, genre and language in the catalogue with its number of releases, most common first: the values `GET /api/v1/release` filters on.',
        responses: { 200: FacetsResponseSchema, 401: problem, ...commonProblems },
        metadata: metadata({ security: 'optional', publicRead: true }),
      },
    },
    health: {
      check: {
        method: 'GET',
        path: apiPaths.health,
        summary: 'Check an API key and the service',
        description:
          'Answers the JSON string `"OK"` when the API key in `x-api-key` is valid and the database answers; 401 when the key is missing, malformed, unknown, revoked or expired; 503 when a dependency does not answer.',
        responses: { 200: z.literal('OK'), 401: problem, ...commonProblems },
        metadata: metadata({ security: 'api-key' }),
      },
    },
    openapi: {
      document: {
        method: 'GET',
        path: apiPaths.openapi,
        summary: 'This API as an OpenAPI 3 document',
        responses: { 200: z.record(z.unknown()), ...commonProblems },
        metadata: metadata({ security: 'none', publicRead: true }),
      },
    },
    docs: {
      reference: {
        method: 'GET',
        path: apiPaths.docs,
        summary: 'Interactive API reference (HTML)',
        responses: { 200: c.otherResponse({ contentType: 'text/html', body: z.string() }) },
        metadata: metadata({ security: 'none' }),
      },
      problem: {
        method: 'GET',
        path: apiPaths.problem,
        summary: 'Explain a problem type (HTML)',
        description: `The page a problem \`type\` URI points to. Kinds: ${problemKindNames.join(', ')}.`,
        pathParams: z.object({ kind: z.string() }),
        responses: { 200: c.otherResponse({ contentType: 'text/html', body: z.string() }), 404: problem },
        metadata: metadata({ security: 'none' }),
      },
    },
    probes: {
      live: {
        method: 'GET',
        path: apiPaths.live,
        summary: 'Liveness probe',
        description: 'Answers while the process runs. No data, no authentication.',
        responses: { 200: z.literal('OK') },
        metadata: metadata({ security: 'none' }),
      },
      ready: {
        method: 'GET',
        path: apiPaths.ready,
        summary: 'Readiness probe',
        description: 'Answers 200 when the database answers, 503 otherwise. No data, no authentication.',
        responses: { 200: z.literal('OK'), 503: problem },
        metadata: metadata({ security: 'none' }),
      },
    },
  },
  { strictStatusCodes: true },
);

export type Contract = typeof contract;
