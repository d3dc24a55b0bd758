import {
  apiPaths,
  contract,
  limits,
  defaultSearchSortOrder,
  defaultSortOrder,
  headerNames,
  releaseFilterParameters,
  ReleaseListResponseSchema,
  ReleaseResponseSchema,
  type ReleaseListQuery,
} from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { CursorDecodeError, type CursorCodec } from '../catalogue/cursor.js';
import { filterKeys } from '../catalogue/filters.js';
import { parseSearch } from '../catalogue/search-text.js';
import type { Clock } from '../kernel/clock.js';
import type { Config } from '../config.js';
import { HttpProblem } from '../kernel/http-problem.js';
import type { ReleasePosition } from '../catalogue/query.js';
import type { CatalogueReads } from '../db/interface.js';
import { decodedBody, generatedNow, setReplyHeaders, type JsonReply } from '../http/json-reply.js';
import { replayable, type ReplayableRoute } from '../http/replayable.js';

export interface ReleaseRouteDeps {
  config: Config;
  catalogue: CatalogueReads;
  clock: Clock;
  cursors: CursorCodec;
}

const cursorMessages = {
  malformed: 'The cursor is not one this service issued. Use data.pagination from a previous response as is.',
  tampered: 'The cursor has been altered. Use data.pagination from a previous response as is.',
  mismatch: `The cursor belongs to a different query: send the same ${releaseFilterParameters.join(', ')}, q and sort that produced it, or start again without a cursor.`,
} as const;

/** The absolute URL of the next page, with the filters as the client sent them (after normalisation). */
function nextPageUrl(publicUrl: string, query: ReleaseListQuery, cursor: string): string {
  const params = new URLSearchParams();
  for (const name of releaseFilterParameters) {
    if (query[name].length > 0) params.set(name, query[name].join(','));
  }
  if (query.q !== undefined) params.set('q', query.q);
  if (query.limit !== limits.defaultPageSize) params.set('limit', String(query.limit));
  if (query.sort !== (query.q === undefined ? defaultSortOrder : defaultSearchSortOrder))
    params.set('sort', query.sort);
  params.set('cursor', cursor);
  return `${publicUrl}${apiPaths.releaseList}?${params.toString()}`;
}

/** The release routes' answers, as JSON text: what both the Express routes and the fast path serve. */
export interface ReleaseReads {
  list(query: ReleaseListQuery): Promise<JsonReply>;
  get(params: { id: string }): Promise<JsonReply>;
}

export function releaseReads(deps: ReleaseRouteDeps): ReleaseReads {
  return {
    async list(query) {
      const filters = filterKeys(query);
      const search = query.q === undefined ? undefined : parseSearch(query.q);
      const bound = { filters, search: search?.text, sort: query.sort };
      let after: ReleasePosition | undefined;
      if (query.cursor !== undefined) {
        try {
          after = deps.cursors.decode(query.cursor, bound);
        } catch (error) {
          if (error instanceof CursorDecodeError) {
            throw new HttpProblem('invalid-cursor', cursorMessages[error.reason], {
              errors: [{ parameter: 'cursor', detail: cursorMessages[error.reason] }],
            });
          }
          throw error;
        }
      }
      const page = await deps.catalogue.listReleases({ filters, search, sort: query.sort, limit: query.limit, after });
      const nextCursor = page.next ? deps.cursors.encode(page.next, bound) : '';
      const body = generatedNow(
        `{"success":true,"data":{"releases":[${page.releaseJson.join(',')}],` +
          `"pagination":${JSON.stringify(nextCursor)},"generated_at":"`,
        '"}}',
        deps.clock,
      );
      const link = nextCursor
        ? ([[headerNames.link, `<${nextPageUrl(deps.config.publicUrl, query, nextCursor)}>; rel="next"`]] as const)
        : [];
      return { body, headers: link };
    },

    async get(params) {
      const doc = await deps.catalogue.getReleaseJson(params.id);
      if (doc === undefined) throw new HttpProblem('not-found', `There is no release with the id ${params.id}.`);
      return { body: `{"success":true,"data":${doc}}`, headers: [] };
    },
  };
}

/** The release routes for ts-rest (Express): the same answers, decoded by the contract's schemas. */
export function releaseRoutes(reads: ReleaseReads): {
  list: AppRouteImplementation<typeof contract.release.list>;
  get: AppRouteImplementation<typeof contract.release.get>;
} {
  return {
    list: async ({ query, res }) => {
      const reply = await reads.list(query);
      setReplyHeaders(res, reply);
      return { status: 200, body: decodedBody(ReleaseListResponseSchema, reply) };
    },
    get: async ({ params, res }) => {
      const reply = await reads.get(params);
      setReplyHeaders(res, reply);
      return { status: 200, body: decodedBody(ReleaseResponseSchema, reply) };
    },
  };
}

/** The release routes for the fast path: the same answers, as text. */
export function releaseReplays(reads: ReleaseReads): ReplayableRoute[] {
  return [
    replayable(contract.release.list, ({ query }) => reads.list(query)),
    replayable(contract.release.get, ({ params }) => reads.get(params)),
  ];
}
