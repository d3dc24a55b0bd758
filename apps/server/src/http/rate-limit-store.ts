import type { Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';

export interface SharedRateLimitStore {
  store: Store;
  close(): Promise<void>;
}

/**
 * Rate-limit counters shared by every instance through Redis (SPEC §4), for when one process is not enough.
 * Commands fail fast while Redis is unreachable (no offline queue), and the limiter lets requests through
 * rather than hanging them (`passOnStoreError`), logging each failure.
 */
export async function openRedisRateLimitStore(
  redisUrl: string,
  logger: Logger,
  prefix = 'releases:rl:',
): Promise<SharedRateLimitStore> {
  const client = createClient({
    url: redisUrl,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
  });
  client.on('error', (error: unknown) => logger.warn({ err: error }, 'redis (rate limits) unavailable'));
  await client.connect();
  const store = new RedisStore({ prefix, sendCommand: (...args: string[]) => client.sendCommand(args) });
  return {
    store,
    close: async () => {
      await client.close();
    },
  };
}
