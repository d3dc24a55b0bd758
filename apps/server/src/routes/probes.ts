import type { contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { serviceUnavailable } from '../kernel/http-problem.js';
import type { Storage } from '../db/interface.js';

export function probesRoutes(deps: { storage: Storage; isShuttingDown: () => boolean }): {
  live: AppRouteImplementation<typeof contract.probes.live>;
  ready: AppRouteImplementation<typeof contract.probes.ready>;
} {
  return {
    live: async ({ res }) => {
      res.setHeader('cache-control', 'no-store');
      return { status: 200, body: 'OK' };
    },
    ready: async ({ res }) => {
      res.setHeader('cache-control', 'no-store');
      // A draining instance tells the load balancer to stop sending traffic before it closes.
      if (deps.isShuttingDown()) throw serviceUnavailable('The server is shutting down.');
      try {
        await deps.storage.ping();
      } catch (error) {
        throw serviceUnavailable('The database is not answering.', error);
      }
      return { status: 200, body: 'OK' };
    },
  };
}
