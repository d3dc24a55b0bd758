import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';

export interface SharedRateLimitStore {
  store: Store;
  close(): Promise<void>;
}

export interface RedisRateLimitOptions {
  /** How long one counting may take before the request is served without it (SPEC §4: about 250 ms). */
  commandTimeoutMs?: number;
  /** While Redis is unavailable, at most one warning per this interval (SPEC §4: a minute). */
  warnIntervalMs?: number;
  /** How often an unavailable Redis is asked whether it answers again. */
  probeIntervalMs?: number;
  /** How long opening waits for a first connection before the server starts without one. */
  connectWaitMs?: number;
}

/** The shared store could not count this request; the limiter lets it through (`passOnStoreError`). */
export class RateLimitStoreUnavailableError extends Error {
  override readonly name = 'RateLimitStoreUnavailableError';
}

type RedisClient = ReturnType<typeof createClient>;

/**
 * Wraps the Redis store so that an outage costs a request at most `commandTimeoutMs` (SPEC §4):
 *
 * - a counting that takes longer, or fails, marks Redis unavailable and lets the request through;
 * - while unavailable (or not yet connected), requests are let through at once, without touching Redis, so
 *   nothing piles up in the client's queue behind a hung server;
 * - a probe (PING) every `probeIntervalMs` notices when Redis answers again, and counting resumes;
 * - one warning per outage, and never more than one per `warnIntervalMs`.
 */
class FailOpenStore implements Store {
  private unavailableSince: number | undefined;
  private lastWarning = Number.NEGATIVE_INFINITY;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    private readonly inner: RedisStore,
    private readonly client: RedisClient,
    private readonly logger: Logger,
    private readonly options: Required<RedisRateLimitOptions>,
  ) {}

  init(options: Options): void {
    // Loads the store's scripts. Without Redis (yet), the store loads them again on first use.
    this.inner.init(options).catch((error: unknown) => this.unavailable(error));
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.call(() => this.inner.increment(key));
  }

  async decrement(key: string): Promise<void> {
    await this.call(() => this.inner.decrement(key));
  }

  async resetKey(key: string): Promise<void> {
    await this.call(() => this.inner.resetKey(key));
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.call(() => this.inner.get(key));
  }

  /** Reported by the client when a connection attempt fails or the connection drops. */
  unavailable(error: unknown): void {
    if (this.unavailableSince === undefined) this.unavailableSince = Date.now();
    const now = Date.now();
    if (now - this.lastWarning >= this.options.warnIntervalMs) {
      this.lastWarning = now;
      this.logger.warn(
        { err: error },
        'rate limits: Redis is not answering; requests are served without limits until it does',
      );
    }
    this.probe ??= setInterval(() => void this.checkBack(), this.options.probeIntervalMs).unref();
  }

  close(): void {
    clearInterval(this.probe);
    this.probe = undefined;
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    if (this.unavailableSince !== undefined || !this.client.isReady) {
      if (this.unavailableSince === undefined) this.unavailable(new Error('not connected'));
      throw new RateLimitStoreUnavailableError('Redis (rate limits) is unavailable');
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.options.commandTimeoutMs} ms`)),
        this.options.commandTimeoutMs,
      );
    });
    try {
      // One bound on the whole counting: the store may send a command, reload its script and send it again.
      return await Promise.race([work(), timeout]);
    } catch (error) {
      this.unavailable(error);
      throw new RateLimitStoreUnavailableError('Redis (rate limits) did not answer', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  private async checkBack(): Promise<void> {
    if (this.probing || !this.client.isReady) return;
    this.probing = true;
    try {
      await this.client.sendCommand(['PING'], { timeout: this.options.commandTimeoutMs });
      const seconds = Math.round((Date.now() - (this.unavailableSince ?? Date.now())) / 1000);
      this.unavailableSince = undefined;
      this.close();
      this.logger.info({ unavailableForSeconds: seconds }, 'rate limits: Redis answers again; limits apply');
    } catch {
      // Still not answering; the next probe asks again.
    } finally {
      this.probing = false;
    }
  }
}

/**
 * Rate-limit counters shared by every instance through Redis (SPEC §4), for when one process is not enough.
 * Never stops the server from starting: without Redis the limits fail open until it answers. Commands fail
 * fast while the connection is down (no offline queue) and time out while Redis hangs.
 */
export async function openRedisRateLimitStore(
  redisUrl: string,
  logger: Logger,
  prefix = 'releases:rl:',
  options: RedisRateLimitOptions = {},
): Promise<SharedRateLimitStore> {
  const settings: Required<RedisRateLimitOptions> = {
    commandTimeoutMs: 250,
    warnIntervalMs: 60_000,
    probeIntervalMs: 1_000,
    connectWaitMs: 1_000,
    ...options,
  };
  const client = createClient({
    url: redisUrl,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
  });
  const inner = new RedisStore({
    prefix,
    sendCommand: (...args: string[]) => client.sendCommand(args, { timeout: settings.commandTimeoutMs }),
  });
  const store = new FailOpenStore(inner, client, logger, settings);
  client.on('error', (error: unknown) => store.unavailable(error));
  // Not awaited: the client keeps trying to connect in the background, and the server must start regardless.
  const connected = client.connect().then(
    () => true,
    () => false,
  );
  let waited: NodeJS.Timeout | undefined;
  await Promise.race([connected, new Promise((resolve) => (waited = setTimeout(resolve, settings.connectWaitMs)))]);
  clearTimeout(waited);
  return {
    store,
    close: () => {
      store.close();
      // destroy, not close: close waits for pending commands, which a hung Redis never answers.
      if (client.isOpen) client.destroy();
      return Promise.resolve();
    },
  };
}
