import type { contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Storage } from '../db/interface.js';

/** The route pipeline has already checked the API key (the contract says `auth: 'api-key'`). */
export function healthRoutes(deps: { storage: Pick<Storage, 'ping'> }): {
  check: AppRouteImplementation<typeof contract.health.check>;
} {
  return {
    check: async ({ res }) => {
      // Throws StorageUnavailableError (→ 503 with Retry-After) when the database does not answer.
      await deps.storage.ping();
      res.setHeader('cache-control', 'no-store');
      return { status: 200, body: 'OK' };
    },
  };
}
