import { createHash } from 'node:crypto';
import { headerNames } from '@releases/contract';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { HttpProblem } from '../kernel/http-problem.js';
import { CounterStoreUnavailableError, type CounterStore, type WindowCount } from './interface.js';
import { BoundedCache } from '../kernel/bounded-cache.js';

/**
 * The quota a request is counted against; its name is the policy's in the `RateLimit` headers. `auth` is the
 * strict per-address quota of signing up and in.
 */
export type Bucket = 'anonymous' | 'api-key' | 'session' | 'auth';

/** One counted request, as its client is told in the IETF draft-8 `RateLimit` and `RateLimit-Policy` headers. */
export interface QuotaUse {
  bucket: Bucket;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  exceeded: boolean;
  /** The whole `RateLimit-Policy` value: `"<bucket>"; q=<limit>; w=<window>; pk=:<partition digest>:`. */
  policy: string;
}

/** A counted request: at once, or (a shared store) once it answers. */
export type QuotaCount = QuotaUse | undefined | Promise<QuotaUse | undefined>;

/** The partition an address is counted in: the address itself, IPv6 per /56 (express-rate-limit's rule). */
export function addressPartition(address: string, bucket: 'anonymous' | 'auth' = 'anonymous'): string {
  return `${bucket === 'auth' ? 'auth' : 'ip'}:${ipKeyGenerator(address)}`;
}

/** Partition digests kept, so the policy header costs no hash for a returning caller. */
const maxRememberedPolicies = 10_000;

/**
 * Per-caller quotas (SPEC §4): anonymous callers per address, API keys per key, sessions per user, signing up
 * and in per address, counted in one store (this process's memory, or Redis shared by every instance). The
 * headers are the draft-8 form express-rate-limit writes (`standardHeaders: 'draft-8'`), with each
 * partition's digest computed once rather than per response. A shared store that cannot count lets the
 * request through (SPEC §4: fail open).
 */
export class CallerQuotas {
  private readonly limits: Record<Bucket, number>;
  private readonly windowSeconds: number;
  private readonly policies = new BoundedCache<string, string>({ max: maxRememberedPolicies });

  constructor(
    config: Pick<Config, 'rateLimits'>,
    private readonly store: CounterStore,
    private readonly logger: Logger,
  ) {
    this.limits = {
      anonymous: config.rateLimits.anonymous,
      'api-key': config.rateLimits.apiKey,
      session: config.rateLimits.session,
      auth: config.rateLimits.auth,
    };
    this.windowSeconds = Math.ceil(config.rateLimits.windowMs / 1000);
  }

  /**
   * Counts one request; undefined when a shared store could not count it (the request is not limited). At once
   * when the store is this process's memory; a promise when it is shared.
   */
  count(bucket: Bucket, partition: string): QuotaCount {
    let counted: WindowCount | Promise<WindowCount>;
    try {
      counted = this.store.increment(partition);
    } catch (error) {
      return this.uncounted(error);
    }
    if (counted instanceof Promise) {
      return counted.then(
        (count) => this.use(bucket, partition, count),
        (error: unknown) => this.uncounted(error),
      );
    }
    return this.use(bucket, partition, counted);
  }

  private use(bucket: Bucket, partition: string, { hits, resetsAt }: WindowCount): QuotaUse {
    const limit = this.limits[bucket];
    return {
      bucket,
      remaining: Math.max(limit - hits, 0),
      resetSeconds: Math.max(0, Math.ceil((resetsAt - Date.now()) / 1000)),
      exceeded: hits > limit,
      policy: this.policy(bucket, partition),
    };
  }

  private uncounted(error: unknown): undefined {
    if (!(error instanceof CounterStoreUnavailableError)) this.logger.error({ err: error }, 'rate limiter error');
    return undefined;
  }

  private policy(bucket: Bucket, partition: string): string {
    const cacheKey = `${bucket} ${partition}`;
    let policy = this.policies.get(cacheKey);
    if (policy === undefined) {
      const digest = Buffer.from(createHash('sha256').update(partition).digest('hex').slice(0, 12)).toString('base64');
      policy = `"${bucket}"; q=${this.limits[bucket]}; w=${this.windowSeconds}; pk=:${digest}:`;
      this.policies.set(cacheKey, policy);
    }
    return policy;
  }
}

/** The draft-8 headers of a counted request. */
export function quotaHeaders(use: QuotaUse): Array<[string, string]> {
  return [
    [headerNames.rateLimit, `"${use.bucket}"; r=${use.remaining}; t=${use.resetSeconds}`],
    [headerNames.rateLimitPolicy, use.policy],
  ];
}

/** A 429 problem, with `Retry-After`. */
export function rateLimitedProblem(seconds: number, detail: string): HttpProblem {
  const wait = Math.max(1, seconds);
  return new HttpProblem('rate-limited', `${detail} Try again in ${wait} seconds.`, {
    headers: { 'retry-after': String(wait) },
  });
}
