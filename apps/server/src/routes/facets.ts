import type { contract, FacetsQuery } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { filterKeys } from '../catalogue/filters.js';
import { parseSearch } from '../catalogue/search-text.js';
import type { Clock } from '../clock.js';
import type { CatalogueReads } from '../storage/interface.js';
import { generatedNow, preserialized, withHeaders, type JsonReply } from './json-text.js';

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

/** The facets route for ts-rest (Express): the same answer. */
export function facetsRoutes(reads: FacetsReads): { list: AppRouteImplementation<typeof contract.facets.list> } {
  return {
    list: async ({ query, res }) => ({ status: 200, body: preserialized(withHeaders(res, await reads.list(query))) }),
  };
}
