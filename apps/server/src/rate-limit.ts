import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import { authLocals, type Principal } from './auth/authenticate.js';
import type { Config } from './config.js';
import { HttpProblem } from './problems.js';

type Bucket = 'anonymous' | 'api-key' | 'session';

function bucketOf(res: Response): Bucket {
  const locals = authLocals(res);
  // A failed credential is counted like an anonymous call from its IP, so guessing keys is throttled too.
  if (locals.authFailure) return 'anonymous';
  return locals.principal.kind;
}

/** The partition of a signed-in caller; anonymous callers are partitioned by IP (IPv6 by /56 subnet). */
function callerPartition(principal: Principal): string | undefined {
  if (principal.kind === 'api-key') return `key:${principal.keyId}`;
  if (principal.kind === 'session') return `user:${principal.userId}`;
  return undefined;
}

/**
 * Per-caller quotas (SPEC §4): anonymous callers per IP, API keys per key, sessions per user, with the IETF
 * draft-8 `RateLimit` / `RateLimit-Policy` headers. Runs after `authenticate` so it knows who is calling.
 */
export function apiRateLimit(config: Config, logger: Logger, store?: Store): RequestHandler {
  const limits: Record<Bucket, number> = {
    anonymous: config.rateLimits.anonymous,
    'api-key': config.rateLimits.apiKey,
    session: config.rateLimits.session,
  };
  return rateLimit({
    windowMs: config.rateLimits.windowMs,
    standardHeaders: 'draft-8',
    // Its own warnings and store errors go to our structured log, not the console.
    logger: {
      error: (...args: unknown[]) => logger.error({ detail: args.map(String) }, 'rate limiter error'),
      warn: (...args: unknown[]) => logger.warn({ detail: args.map(String) }, 'rate limiter warning'),
    },
    legacyHeaders: false,
    identifier: (_req, res) => bucketOf(res),
    limit: (_req, res) => limits[bucketOf(res)],
    keyGenerator: (req, res) => {
      const caller = bucketOf(res) === 'anonymous' ? undefined : callerPartition(authLocals(res).principal);
      return caller ?? `ip:${ipKeyGenerator(req.ip ?? '')}`;
    },
    // With a shared store (Redis), an outage lets requests through instead of failing them; it is logged.
    ...(store ? { store, passOnStoreError: true } : {}),
    handler: (req, _res, next) => {
      const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(
        1,
        Math.ceil(((resetTime?.getTime() ?? Date.now() + config.rateLimits.windowMs) - Date.now()) / 1000),
      );
      next(
        new HttpProblem('rate-limited', `Too many requests: try again in ${seconds} seconds.`, {
          headers: { 'retry-after': String(seconds) },
        }),
      );
    },
  });
}
