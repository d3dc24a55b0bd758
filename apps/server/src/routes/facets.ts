import type { contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Clock } from '../clock.js';
import type { CatalogueReads } from '../storage/interface.js';
import { generatedNow, preserialized } from './json-text.js';

export function facetsRoutes(deps: { catalogue: CatalogueReads; clock: Clock }): {
  list: AppRouteImplementation<typeof contract.facets.list>;
} {
  return {
    // The storage keeps the facets for as long as the catalogue stays the same, on every instance.
    list: async () => {
      const facets = JSON.stringify({ success: true, data: await deps.catalogue.facets() });
      // `{"success":true,"data":{...}}` with `generated_at` last in `data`, where the contract lists it.
      const body = generatedNow(`${facets.slice(0, -2)},"generated_at":"`, '"}}', deps.clock);
      return { status: 200, body: preserialized(body) };
    },
  };
}
