import type { contract, Facets } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Clock } from '../clock.js';
import type { CatalogueReads } from '../storage/interface.js';

export function facetsRoutes(deps: { catalogue: CatalogueReads; clock: Clock }): {
  list: AppRouteImplementation<typeof contract.facets.list>;
} {
  // Facets change only when the catalogue does; the version check keeps the cache right on every instance.
  let cached: { version: number; facets: Omit<Facets, 'generated_at'> } | undefined;
  return {
    list: async () => {
      const version = await deps.catalogue.catalogueVersion();
      if (cached?.version !== version) cached = { version, facets: await deps.catalogue.facets() };
      return {
        status: 200,
        body: { success: true, data: { ...cached.facets, generated_at: new Date(deps.clock.now()).toISOString() } },
      };
    },
  };
}
