import { ipKeyGenerator, MemoryStore, rateLimit, type AugmentedRequest, type Store } from 'express-rate-limit';
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
type Bucket = 'anonymous' | 'api-key' | 'session' | 'auth';

function bucketOf(req: Request): Bucket {
  const context = requestContext(req);
  if (context.metadata.rateLimit === 'auth') return 'auth';
  // A failed credential is counted like an anonymous call from its IP, so guessing is throttled too.
  if (context.authFailure) return 'anonymous';
  return context.caller.kind;
}

/** Anonymous callers, failed credentials and sign-ins are counted per client IP (IPv6 per /56). */
function clientIp(req: Request): string {
  return ipKeyGenerator(req.ip ?? '');
}

function partitionOf(req: Request, bucket: Bucket): string {
  const caller = requestContext(req).caller;
  if (bucket === 'api-key' && caller.kind === 'api-key') return `key:${caller.keyId}`;
  if (bucket === 'session' && caller.kind === 'session') return `user:${caller.userId}`;
  return `${bucket === 'auth' ? 'auth' : 'ip'}:${clientIp(req)}`;
}

function rateLimitedProblem(req: Request, property: string, windowMs: number, detail: string): HttpProblem {
  const resetTime = (req as AugmentedRequest)[property]?.resetTime;
  const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
  return new HttpProblem('rate-limited', `${detail} Try again in ${seconds} seconds.`, {
    headers: { 'retry-after': String(seconds) },
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

/**
 * Per-caller quotas (SPEC §4): anonymous callers per IP, API keys per key, sessions per user, signing up and
 * in per IP, with the IETF draft-8 `RateLimit` / `RateLimit-Policy` headers. Runs after the credential is
 * verified, so it knows who is calling.
 */
export function callerRateLimit(config: Config, logger: Logger, store?: Store): RequestHandler {
  const limits: Record<Bucket, number> = {
    anonymous: config.rateLimits.anonymous,
    'api-key': config.rateLimits.apiKey,
    session: config.rateLimits.session,
    auth: config.rateLimits.auth,
  };
  return rateLimit({
    windowMs: config.rateLimits.windowMs,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    logger: limiterLogger(logger),
    identifier: (req) => bucketOf(req),
    limit: (req) => limits[bucketOf(req)],
    keyGenerator: (req) => partitionOf(req, bucketOf(req)),
    // Routes the contract marks `rateLimit: 'none'`: the probes. Orchestrators poll them from one address for
    // every instance; counted, they would spend that address's quota and take healthy instances out of rotation.
    skip: (req) => requestContext(req).metadata.rateLimit === 'none',
    // With a shared store (Redis), an outage lets requests through instead of failing them (SPEC §4).
    ...(store ? { store, passOnStoreError: true } : {}),
    handler: (req, _res, next) =>
      next(rateLimitedProblem(req, 'rateLimit', config.rateLimits.windowMs, 'Too many requests.')),
  });
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

function fingerprint(credential: PresentedCredential): string | undefined {
  if (credential.kind === 'api-key') return `key:${hashSecret(credential.key)}`;
  if (credential.kind === 'session') return `session:${hashSecret(credential.token)}`;
  return undefined;
}

export interface FailedCredentialGuard {
  /** Before the lookup: refuses an address over its failure quota, unless its credential proved good lately. */
  refuse: RequestHandler;
  /** After the lookup: remembers which credentials proved good, and forgets those that no longer are. */
  learn: RequestHandler;
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
  const fingerprints = new WeakMap<Request, string>();
  const fingerprintOf = (req: Request): string | undefined => {
    let known = fingerprints.get(req);
    if (known === undefined) {
      known = fingerprint(requestContext(req).credential);
      if (known !== undefined) fingerprints.set(req, known);
    }
    return known;
  };
  const refuse = rateLimit({
    windowMs: config.rateLimits.windowMs,
    limit: config.rateLimits.anonymous,
    store: new MemoryStore(),
    requestPropertyName: 'failedCredentialLimit',
    standardHeaders: false,
    legacyHeaders: false,
    logger: limiterLogger(logger),
    keyGenerator: (req) => `failed:${clientIp(req)}`,
    skip: (req) => {
      if (requestContext(req).credential.kind === 'none') return true;
      const known = fingerprintOf(req);
      return known !== undefined && proven.has(known, clock.now());
    },
    skipSuccessfulRequests: true,
    requestWasSuccessful: (req) => requestContext(req).authFailure === undefined,
    handler: (req, _res, next) =>
      next(
        rateLimitedProblem(
          req,
          'failedCredentialLimit',
          config.rateLimits.windowMs,
          'Too many requests with invalid credentials from this address.',
        ),
      ),
  });
  const learn: RequestHandler = (req, _res, next) => {
    const known = fingerprintOf(req);
    if (known !== undefined) {
      if (requestContext(req).authFailure === undefined) proven.prove(known, clock.now());
      else proven.forget(known);
    }
    next();
  };
  return { refuse, learn };
}
