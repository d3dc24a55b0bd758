import {
  apiPaths,
  type contract,
  limits,
  defaultSortOrder,
  headerNames,
  type ReleaseListQuery,
} from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { CursorDecodeError, type CursorCodec } from '../catalogue/cursor.js';
import { canonicalLanguageTag } from '../catalogue/language-tags.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { HttpProblem } from '../problems.js';
import type { CatalogueReads, ReleaseFilterKeys, ReleasePosition } from '../storage/interface.js';
import { replayable } from './json-text.js';

export interface ReleaseRouteDeps {
  config: Config;
  catalogue: CatalogueReads;
  clock: Clock;
  cursors: CursorCodec;
}

const cursorMessages = {
  malformed: 'The cursor is not one this service issued. Use data.pagination from a previous response as is.',
  tampered: 'The cursor has been altered. Use data.pagination from a previous response as is.',
  mismatch:
    'The cursor belongs to a different query: send the same vocaloid_banks, genres, languages and sort that produced it, or start again without a cursor.',
} as const;

/**
 * Filter values as storage keys them: lowercase and distinct, language tags in the canonical form they are
 * stored in (`iw` → `he`). Cursors are bound to these keys, so a cursor made with `languages=iw` also serves
 * `languages=he`, and the Link header (which repeats the values as sent) leads to the same page.
 */
function filterKeys(query: ReleaseListQuery): ReleaseFilterKeys {
  const keys = (values: string[], canonical: (value: string) => string = (value) => value) => [
    ...new Set(values.map((value) => canonical(value).toLowerCase())),
  ];
  return {
    vocaloid_banks: keys(query.vocaloid_banks),
    genres: keys(query.genres),
    languages: keys(query.languages, canonicalLanguageTag),
  };
}

/** The absolute URL of the next page, with the filters as the client sent them (after normalisation). */
function nextPageUrl(publicUrl: string, query: ReleaseListQuery, cursor: string): string {
  const params = new URLSearchParams();
  for (const name of ['vocaloid_banks', 'genres', 'languages'] as const) {
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
    list: async ({ query, req, res }) => {
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
      const body = {
        before:
          `{"success":true,"data":{"releases":[${page.releaseJson.join(',')}],` +
          `"pagination":${JSON.stringify(nextCursor)},"generated_at":"`,
        after: '"}}',
      };
      return { status: 200, body: replayable(req, body, deps.clock) };
    },

    get: async ({ params, req }) => {
      const doc = await deps.catalogue.getReleaseJson(params.id);
      if (doc === undefined) throw new HttpProblem('not-found', `There is no release with the id ${params.id}.`);
      return {
        status: 200,
        body: replayable(req, { before: `{"success":true,"data":${doc}}`, after: '' }, deps.clock),
      };
    },
  };
}
