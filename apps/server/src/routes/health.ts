import type { contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { requireApiKey } from '../auth/authenticate.js';
import type { Storage } from '../storage/interface.js';

export function healthRoutes(deps: { storage: Storage }): {
  check: AppRouteImplementation<typeof contract.health.check>;
} {
  return {
    check: async ({ res }) => {
      requireApiKey(res);
      // Throws StorageUnavailableError (→ 503 with Retry-After) when the database does not answer.
      await deps.storage.ping();
      res.setHeader('cache-control', 'no-store');
      return { status: 200, body: 'OK' };
    },
  };
}
