import { contract, FacetsResponseSchema, type FacetsQuery } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { filterKeys } from '../catalogue/filters.js';
import { parseSearch } from '../catalogue/search-text.js';
import type { Clock } from '../kernel/clock.js';
import type { CatalogueReads } from '../db/interface.js';
import { decodedBody, generatedNow, setReplyHeaders, type JsonReply } from '../http/json-reply.js';
import { replayable, type ReplayableRoute } from '../http/replayable.js';

/** The facets' answer, as JSON text: what both the Express route and the fast path serve. */
export interface FacetsReads {
  list(query: FacetsQuery): Promise<JsonReply>;
}

export function facetsReads(deps: { catalogue: CatalogueReads; clock: Clock }): FacetsReads {
  return {
    // The storage keeps the whole catalogue's facets for as long as it stays the same, on every instance; the
    // answer cache keeps those of repeated queries.
    async list(query) {
      const search = query.q === undefined ? undefined : parseSearch(query.q);
      const facets = JSON.stringify({
        success: true,
        data: await deps.catalogue.facets({ filters: filterKeys(query), search }),
      });
      // `{"success":true,"data":{...}}` with `generated_at` last in `data`, where the contract lists it.
      return { body: generatedNow(`${facets.slice(0, -2)},"generated_at":"`, '"}}', deps.clock), headers: [] };
    },
  };
}

/** The facets route for ts-rest (Express): the same answer, decoded by the contract's schema. */
export function facetsRoutes(reads: FacetsReads): { list: AppRouteImplementation<typeof contract.facets.list> } {
  return {
    list: async ({ query, res }) => {
      const reply = await reads.list(query);
      setReplyHeaders(res, reply);
      return { status: 200, body: decodedBody(FacetsResponseSchema, reply) };
    },
  };
}

/** The facets route for the fast path: the same answer, as text. */
export function facetsReplays(reads: FacetsReads): ReplayableRoute[] {
  return [replayable(contract.facets.list, ({ query }) => reads.list(query))];
}
