import {
  apiPaths,
  type contract,
  limits,
  defaultSortOrder,
  headerNames,
  releaseFilterParameters,
  type ReleaseListQuery,
} from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { CursorDecodeError, type CursorCodec } from '../catalogue/cursor.js';
import { filterKeys } from '../catalogue/filters.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { HttpProblem } from '../problems.js';
import type { CatalogueReads, ReleasePosition } from '../storage/interface.js';
import { generatedNow, preserialized } from './json-text.js';

export interface ReleaseRouteDeps {
  config: Config;
  catalogue: CatalogueReads;
  clock: Clock;
  cursors: CursorCodec;
}

const cursorMessages = {
  malformed: 'The cursor is not one this service issued. Use data.pagination from a previous response as is.',
  tampered: 'The cursor has been altered. Use data.pagination from a previous response as is.',
  mismatch: `The cursor belongs to a different query: send the same ${releaseFilterParameters.join(', ')} and sort that produced it, or start again without a cursor.`,
} as const;

/** The absolute URL of the next page, with the filters as the client sent them (after normalisation). */
function nextPageUrl(publicUrl: string, query: ReleaseListQuery, cursor: string): string {
  const params = new URLSearchParams();
  for (const name of releaseFilterParameters) {
    if (query[name].length > 0) params.set(name, query[name].join(','));
  }
  if (query.limit !== limits.defaultPageSize) params.set('limit', String(query.limit));
  if (query.sort !== defaultSortOrder) params.set('sort', query.sort);
  params.set('cursor', cursor);
  return `${publicUrl}${apiPaths.releaseList}?${params.toString()}`;
}

export function releaseRoutes(deps: ReleaseRouteDeps): {
  list: AppRouteImplementation<typeof contract.release.list>;
  get: AppRouteImplementation<typeof contract.release.get>;
} {
  return {
    list: async ({ query, res }) => {
      const filters = filterKeys(query);
      let after: ReleasePosition | undefined;
      if (query.cursor !== undefined) {
        try {
          after = deps.cursors.decode(query.cursor, { filters, sort: query.sort });
        } catch (error) {
          if (error instanceof CursorDecodeError) {
            throw new HttpProblem('invalid-cursor', cursorMessages[error.reason], {
              errors: [{ parameter: 'cursor', detail: cursorMessages[error.reason] }],
            });
          }
          throw error;
        }
      }
      const page = await deps.catalogue.listReleases({ filters, sort: query.sort, limit: query.limit, after });
      const nextCursor = page.next ? deps.cursors.encode(page.next, { filters, sort: query.sort }) : '';
      if (nextCursor)
        res.setHeader(headerNames.link, `<${nextPageUrl(deps.config.publicUrl, query, nextCursor)}>; rel="next"`);
      const body = generatedNow(
        `{"success":true,"data":{"releases":[${page.releaseJson.join(',')}],` +
          `"pagination":${JSON.stringify(nextCursor)},"generated_at":"`,
        '"}}',
        deps.clock,
      );
      return { status: 200, body: preserialized(body) };
    },

    get: async ({ params }) => {
      const doc = await deps.catalogue.getReleaseJson(params.id);
      if (doc === undefined) throw new HttpProblem('not-found', `There is no release with the id ${params.id}.`);
      return { status: 200, body: preserialized(`{"success":true,"data":${doc}}`) };
    },
  };
}
