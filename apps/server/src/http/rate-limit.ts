import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  ipKeyGenerator,
  MemoryStore,
  rateLimit,
  type AugmentedRequest,
  type Options,
  type Store,
} from 'express-rate-limit';
import { headerNames } from '@releases/contract';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { hashSecret } from '../auth/api-keys.js';
import type { PresentedCredential } from '../auth/credentials.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { HttpProblem } from '../problems.js';
import { RateLimitStoreUnavailableError } from './rate-limit-store.js';
import { requestContext } from './request-context.js';

/** The quota a request is counted against (its name is the policy in the `RateLimit` headers). */
export type Bucket = 'anonymous' | 'api-key' | 'session' | 'auth';

function bucketOf(req: Request): Bucket {
  const context = requestContext(req);
  if (context.metadata.rateLimit === 'auth') return 'auth';
  // A failed credential is counted like an anonymous call from its IP, so guessing is throttled too.
  if (context.authFailure) return 'anonymous';
  return context.caller.kind;
}

/** The partition an address is counted in: the address itself, IPv6 per /56. */
export function addressPartition(ip: string, bucket: 'anonymous' | 'auth' = 'anonymous'): string {
  return `${bucket === 'auth' ? 'auth' : 'ip'}:${ipKeyGenerator(ip)}`;
}

function partitionOf(req: Request, bucket: Bucket): string {
  const caller = requestContext(req).caller;
  if (bucket === 'api-key' && caller.kind === 'api-key') return `key:${caller.keyId}`;
  if (bucket === 'session' && caller.kind === 'session') return `user:${caller.userId}`;
  return addressPartition(req.ip ?? '', bucket === 'auth' ? 'auth' : 'anonymous');
}

function rateLimitedProblem(seconds: number, detail: string): HttpProblem {
  const wait = Math.max(1, seconds);
  return new HttpProblem('rate-limited', `${detail} Try again in ${wait} seconds.`, {
    headers: { 'retry-after': String(wait) },
  });
}

function limiterLogger(logger: Logger) {
  // The limiter's own warnings and store errors go to our structured log, not the console. A shared store
  // that is unavailable has said so already (once a minute at most), not once per request.
  return {
    error: (...args: unknown[]) => {
      if (args[0] instanceof RateLimitStoreUnavailableError) return;
      logger.error({ detail: args.map(String) }, 'rate limiter error');
    },
    warn: (...args: unknown[]) => logger.warn({ detail: args.map(String) }, 'rate limiter warning'),
  };
}

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

/** Partition digests kept, so the policy header costs no hash for a returning caller. */
const maxRememberedPolicies = 10_000;

/**
 * Per-caller quotas (SPEC §4): anonymous callers per IP, API keys per key, sessions per user, signing up and
 * in per IP, counted in express-rate-limit's stores (in memory, or Redis shared by every instance). The headers
 * are the draft-8 form express-rate-limit writes, with each partition's digest computed once rather than per
 * response. A shared store that cannot count lets the request through (SPEC §4: fail open).
 */
export class CallerQuotas {
  private readonly limits: Record<Bucket, number>;
  private readonly windowSeconds: number;
  private readonly policies = new Map<string, string>();
  private readonly store: Store;

  constructor(
    config: Config,
    private readonly logger: Logger,
    private readonly sharedStore?: Store,
  ) {
    this.limits = {
      anonymous: config.rateLimits.anonymous,
      'api-key': config.rateLimits.apiKey,
      session: config.rateLimits.session,
      auth: config.rateLimits.auth,
    };
    this.windowSeconds = Math.ceil(config.rateLimits.windowMs / 1000);
    this.store = sharedStore ?? new MemoryStore();
    // The stores read only the window from the limiter's options (MemoryStore, RedisStore and ours around it).
    void this.store.init?.({ windowMs: config.rateLimits.windowMs } as Options);
  }

  /** Counts one request; undefined when the shared store could not count it (the request is not limited). */
  async count(bucket: Bucket, partition: string): Promise<QuotaUse | undefined> {
    let hits: number;
    let resetTime: Date | undefined;
    try {
      ({ totalHits: hits, resetTime } = await this.store.increment(partition));
    } catch (error) {
      if (!this.sharedStore) throw error;
      if (!(error instanceof RateLimitStoreUnavailableError)) this.logger.error({ err: error }, 'rate limiter error');
      return undefined;
    }
    const limit = this.limits[bucket];
    const resetSeconds =
      resetTime === undefined ? this.windowSeconds : Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000));
    return {
      bucket,
      remaining: Math.max(limit - hits, 0),
      resetSeconds,
      exceeded: hits > limit,
      policy: this.policy(bucket, partition),
    };
  }

  private policy(bucket: Bucket, partition: string): string {
    const cacheKey = `${bucket} ${partition}`;
    let policy = this.policies.get(cacheKey);
    if (policy === undefined) {
      const digest = Buffer.from(createHash('sha256').update(partition).digest('hex').slice(0, 12)).toString('base64');
      policy = `"${bucket}"; q=${this.limits[bucket]}; w=${this.windowSeconds}; pk=:${digest}:`;
      if (this.policies.size >= maxRememberedPolicies) this.policies.delete(this.policies.keys().next().value!);
      this.policies.set(cacheKey, policy);
    }
    return policy;
  }
}

/** The draft-8 `RateLimit` value of a counted request. */
export function rateLimitHeader(use: QuotaUse): string {
  return `"${use.bucket}"; r=${use.remaining}; t=${use.resetSeconds}`;
}

/** The draft-8 headers of a counted request. */
function writeQuotaHeaders(res: ServerResponse, use: QuotaUse): void {
  res.setHeader(headerNames.rateLimit, rateLimitHeader(use));
  res.setHeader(headerNames.rateLimitPolicy, use.policy);
}

/** The 429 of a request over its quota. */
function quotaExceeded(use: QuotaUse): HttpProblem {
  return rateLimitedProblem(use.resetSeconds, 'Too many requests.');
}

/**
 * Counts each contract route's request against its caller's quota, after the credential is verified so it is
 * known who is calling. A request already counted ahead of the app (the public read cache, which hands over
 * only requests over their quota) is not counted twice.
 */
export function callerRateLimit(quotas: CallerQuotas): RequestHandler {
  return (req, res, next) => {
    const context = requestContext(req);
    // Routes the contract marks `rateLimit: 'none'`: the probes. Orchestrators poll them from one address for
    // every instance; counted, they would spend that address's quota and take healthy instances out of rotation.
    if (context.metadata.rateLimit === 'none') return next();
    const bucket = bucketOf(req);
    const counted = context.countedQuota;
    (counted ? Promise.resolve(counted) : quotas.count(bucket, partitionOf(req, bucket))).then((use) => {
      if (use === undefined) return next();
      writeQuotaHeaders(res, use);
      next(use.exceeded ? quotaExceeded(use) : undefined);
    }, next);
  };
}

/** How long a credential that verified stays "proven" on this instance; renewed by each success. */
const provenCredentialTtlMs = 60 * 60_000;
const maxProvenCredentials = 10_000;

/**
 * Credentials that verified lately on this instance, by their SHA-256 (never the secret itself), so an
 * address that is over its failure quota still gets through with a good one: the legitimate user behind a
 * NAT or proxy an attacker shares. Oldest first, so the bound drops the least recently proven.
 */
class ProvenCredentials {
  private readonly until = new Map<string, number>();

  has(fingerprint: string, now: number): boolean {
    const until = this.until.get(fingerprint);
    return until !== undefined && until > now;
  }

  prove(fingerprint: string, now: number): void {
    this.until.delete(fingerprint);
    if (this.until.size >= maxProvenCredentials) this.until.delete(this.until.keys().next().value!);
    this.until.set(fingerprint, now + provenCredentialTtlMs);
  }

  forget(fingerprint: string): void {
    this.until.delete(fingerprint);
  }
}

/** Fingerprints by credential: each request's credential is hashed once, however many steps ask. */
const fingerprints = new WeakMap<PresentedCredential, string>();

function fingerprint(credential: PresentedCredential): string | undefined {
  let known = fingerprints.get(credential);
  if (known !== undefined) return known;
  if (credential.kind === 'api-key') known = `key:${hashSecret(credential.key)}`;
  else if (credential.kind === 'session') known = `session:${hashSecret(credential.token)}`;
  else return undefined;
  fingerprints.set(credential, known);
  return known;
}

export interface FailedCredentialGuard {
  /** Before the lookup: refuses an address over its failure quota, unless its credential proved good lately. */
  refuse: RequestHandler;
  /** After the lookup: remembers which credentials proved good, and forgets those that no longer are. */
  learn: RequestHandler;
  /** Whether a credential proved good lately on this instance (so `refuse` lets it through whatever its address). */
  provenLately(credential: PresentedCredential): boolean;
  /** Records that a credential proved good again (what `learn` does for a request that passed). */
  proveAgain(credential: PresentedCredential): void;
}

/**
 * Runs around the one credential lookup: once a client IP has presented more failed credentials in a window
 * than an anonymous caller may make requests, its further credentialed requests are refused without touching
 * the database or the key manager, so a flood of made-up (even checksum-valid) keys costs no lookups. Only
 * failures count (a successful request gives its count back), and a credential that has proved good on this
 * instance passes regardless: the flood cannot lock out a real caller from the same address.
 *
 * Counted in this process's memory, not Redis: it protects this instance's path to the database, and a shared
 * count would add a round trip to every request that carries a credential.
 */
export function failedCredentialGuard(config: Config, logger: Logger, clock: Clock): FailedCredentialGuard {
  const proven = new ProvenCredentials();
  const fingerprintOf = (req: Request): string | undefined => fingerprint(requestContext(req).credential);
  const refuse = rateLimit({
    windowMs: config.rateLimits.windowMs,
    limit: config.rateLimits.anonymous,
    store: new MemoryStore(),
    requestPropertyName: 'failedCredentialLimit',
    standardHeaders: false,
    legacyHeaders: false,
    logger: limiterLogger(logger),
    keyGenerator: (req) => `failed:${ipKeyGenerator(req.ip ?? '')}`,
    skip: (req) => {
      if (requestContext(req).credential.kind === 'none') return true;
      const known = fingerprintOf(req);
      return known !== undefined && proven.has(known, clock.now());
    },
    skipSuccessfulRequests: true,
    requestWasSuccessful: (req) => requestContext(req).authFailure === undefined,
    handler: (req, _res, next) => {
      const resetTime = (req as AugmentedRequest)['failedCredentialLimit']?.resetTime;
      const seconds = Math.ceil(
        ((resetTime?.getTime() ?? Date.now() + config.rateLimits.windowMs) - Date.now()) / 1000,
      );
      next(rateLimitedProblem(seconds, 'Too many requests with invalid credentials from this address.'));
    },
  });
  const learn: RequestHandler = (req, _res, next) => {
    const known = fingerprintOf(req);
    if (known !== undefined) {
      if (requestContext(req).authFailure === undefined) proven.prove(known, clock.now());
      else proven.forget(known);
    }
    next();
  };
  return {
    // Most requests carry no credential, and most that do carry one proven lately: neither enters the limiter
    // (and its promises) at all; `skip` says the same for any that would.
    refuse: (req, res, next) => {
      if (requestContext(req).credential.kind === 'none') return next();
      const known = fingerprintOf(req);
      if (known !== undefined && proven.has(known, clock.now())) return next();
      refuse(req, res, next);
    },
    learn,
    provenLately: (credential) => {
      const known = fingerprint(credential);
      return known !== undefined && proven.has(known, clock.now());
    },
    proveAgain: (credential) => {
      const known = fingerprint(credential);
      if (known !== undefined) proven.prove(known, clock.now());
    },
  };
}
