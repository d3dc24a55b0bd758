import type { Options } from 'express-rate-limit';
import type { Logger } from 'pino';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';
import { settlesWithin, withDeadline } from '../kernel/deadline.js';
import { OutageLog } from '../kernel/outage-log.js';
import { CounterStoreUnavailableError, type CounterStore, type WindowCount } from './interface.js';

export interface RedisOptions {
  /** How long one counting may take before the request is served without it (SPEC §4: about 250 ms). */
  commandTimeoutMs?: number;
  /** While Redis is unavailable, at most one warning per this interval (SPEC §4: a minute). */
  warnIntervalMs?: number;
  /** How often an unavailable Redis is asked whether it answers again. */
  probeIntervalMs?: number;
  /** How long opening waits for a first connection before the server starts without one. */
  connectWaitMs?: number;
}

type RedisClient = ReturnType<typeof createClient>;

/**
 * One Redis connection for the counters every instance shares, failing open (SPEC §4): an outage costs a
 * request at most `commandTimeoutMs`.
 *
 * - a command that takes longer, or fails, marks Redis unavailable, and the caller serves the request uncounted;
 * - while unavailable (or not yet connected), nothing touches Redis at all, so nothing piles up in the client's
 *   queue behind a hung server;
 * - a probe (PING) every `probeIntervalMs` notices when Redis answers again, and counting resumes;
 * - one warning per outage, and never more than one per `warnIntervalMs`.
 */
export class SharedRedis {
  /** Logged once when Redis stops answering, at most once a minute meanwhile, once when it answers again. */
  private readonly outages: OutageLog;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    readonly client: RedisClient,
    logger: Logger,
    readonly options: Required<RedisOptions>,
  ) {
    this.outages = new OutageLog('Redis (rate limits and the sign-in throttle)', logger, {
      intervalMs: options.warnIntervalMs,
    });
    client.on('error', (error: unknown) => this.unavailable(error));
  }

  /** Whether counting goes to Redis now; false while requests are served without it (read by the metrics). */
  get available(): boolean {
    return !this.outages.down && this.client.isReady;
  }

  /** Runs one counting against Redis, bounded in time; throws `CounterStoreUnavailableError` instead of waiting. */
  async call<T>(work: () => Promise<T>): Promise<T> {
    if (this.outages.down || !this.client.isReady) {
      if (!this.outages.down) this.unavailable(new Error('not connected'));
      throw new CounterStoreUnavailableError('Redis (rate limits) is unavailable');
    }
    const timeoutMs = this.options.commandTimeoutMs;
    try {
      // One bound on the whole counting: the store may send a command, reload its script and send it again.
      return await withDeadline(timeoutMs, work, () => new Error(`no answer within ${timeoutMs} ms`));
    } catch (error) {
      this.unavailable(error);
      throw new CounterStoreUnavailableError('Redis (rate limits) did not answer', { cause: error });
    }
  }

  /** Reported by the client when a connection attempt fails or the connection drops, and by failed calls. */
  unavailable(error: unknown): void {
    this.outages.failed(error);
    this.probe ??= setInterval(() => void this.checkBack(), this.options.probeIntervalMs).unref();
  }

  close(): Promise<void> {
    clearInterval(this.probe);
    this.probe = undefined;
    // destroy, not close: close waits for pending commands, which a hung Redis never answers.
    if (this.client.isOpen) this.client.destroy();
    return Promise.resolve();
  }

  private async checkBack(): Promise<void> {
    if (this.probing || !this.client.isReady) return;
    this.probing = true;
    try {
      await this.client.sendCommand(['PING'], { timeout: this.options.commandTimeoutMs });
      this.outages.answered();
      clearInterval(this.probe);
      this.probe = undefined;
    } catch {
      // Still not answering; the next probe asks again.
    } finally {
      this.probing = false;
    }
  }
}

/**
 * Connects to the Redis that every instance shares (SPEC §4). Never stops the server from starting: without
 * Redis the limits fail open until it answers. Commands fail fast while the connection is down (no offline
 * queue) and time out while Redis hangs.
 */
export async function openSharedRedis(
  redisUrl: string,
  logger: Logger,
  options: RedisOptions = {},
): Promise<SharedRedis> {
  const settings: Required<RedisOptions> = {
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
  const shared = new SharedRedis(client, logger, settings);
  // Not awaited: the client keeps trying to connect in the background, and the server must start regardless.
  const connected = client.connect();
  await settlesWithin(connected, settings.connectWaitMs);
  return shared;
}

/**
 * Counters shared through Redis: the store maintained alongside express-rate-limit (`rate-limit-redis`, an
 * atomic script per hit), over the shared connection's fail-open calls.
 */
export class RedisCounterStore implements CounterStore {
  private readonly store: RedisStore;

  constructor(
    private readonly redis: SharedRedis,
    options: { prefix: string; windowMs: number },
  ) {
    this.store = new RedisStore({
      prefix: options.prefix,
      sendCommand: (...args: string[]) => redis.client.sendCommand(args, { timeout: redis.options.commandTimeoutMs }),
    });
    // Loads the store's script. Without Redis (yet), the store loads it again on first use.
    this.store.init({ windowMs: options.windowMs } as Options).catch((error: unknown) => redis.unavailable(error));
  }

  increment(key: string): Promise<WindowCount> {
    return this.redis.call(async () => {
      const { totalHits, resetTime } = await this.store.increment(key);
      return { hits: totalHits, resetsAt: resetTime?.getTime() ?? Date.now() };
    });
  }

  get(key: string): Promise<WindowCount | undefined> {
    return this.redis.call(async () => {
      const info = await this.store.get(key);
      // A key Redis does not have comes back as hits NaN (its script's GET answers nil) and a past reset.
      if (!info || !Number.isFinite(info.totalHits) || info.totalHits <= 0) return undefined;
      return { hits: info.totalHits, resetsAt: info.resetTime?.getTime() ?? Date.now() };
    });
  }

  reset(key: string): Promise<void> {
    return this.redis.call(() => this.store.resetKey(key));
  }
}
