import { headerNames } from '@releases/contract';
import type { RequestHandler, Response } from 'express';
import type { Clock } from '../clock.js';
import { HttpProblem } from '../problems.js';
import type { Storage } from '../storage/interface.js';
import { hashSecret } from './api-keys.js';
import type { KeyManager, KeyVerification } from './key-manager.js';

export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'api-key'; keyId: string; ownerId: string | null }
  | { kind: 'session'; userId: string; sessionId: string };

const anonymous: Principal = { kind: 'anonymous' };

/** Challenges sent with every 401, one per scheme the service accepts. */
export const apiKeyChallenge = `ApiKey realm="releases", header="${headerNames.apiKey}"`;
export const bearerChallenge = 'Bearer realm="releases"';

/** Session tokens are 32 random bytes, base64url: 43 characters. */
const sessionTokenShape = /^[A-Za-z0-9_-]{43}$/;

export function unauthorized(detail: string, challenges: string[] = [apiKeyChallenge, bearerChallenge]): HttpProblem {
  return new HttpProblem('unauthorized', detail, { headers: { 'www-authenticate': challenges.join(', ') } });
}

export const authMessages = {
  missingApiKey: `This endpoint needs an API key: send it in the ${headerNames.apiKey} header.`,
  missingCredential: `This endpoint needs a credential: an API key in the ${headerNames.apiKey} header, or a session.`,
  malformed: 'The API key is malformed: keys are 42 characters, start with rls_ and contain only letters and digits.',
  'bad-checksum': 'The API key does not pass its checksum: it was mistyped or cut short.',
  unknown: 'The API key is not recognised.',
  revoked: 'The API key has been revoked.',
  expired: (at: string) => `The API key expired at ${at}.`,
  malformedAuthorization: 'The Authorization header must be "Bearer <session token>".',
  invalidSession: 'The session token is invalid or has expired. Sign in again.',
} as const;

export function keyFailureDetail(result: Extract<KeyVerification, { valid: false }>): string {
  return result.reason === 'expired'
    ? authMessages.expired(result.expiredAt ?? 'an earlier time')
    : authMessages[result.reason];
}

export interface AuthLocals {
  principal: Principal;
  /** Set when a credential was sent but is not valid: answered with 401 after rate limiting counts it. */
  authFailure?: HttpProblem;
}

export function authLocals(res: Response): AuthLocals {
  return res.locals as AuthLocals;
}

/**
 * Identifies the caller from `x-api-key` or `Authorization: Bearer`. A credential that is present but
 * invalid is a failure, never a silent downgrade to anonymous. The 401 itself is raised by
 * `rejectFailedAuthentication`, after the rate limiter has counted the attempt against the caller's IP.
 */
export function authenticate(deps: { keys: KeyManager; storage: Storage; clock: Clock }): RequestHandler {
  return (req, res, next) => {
    const locals = authLocals(res);
    locals.principal = anonymous;
    // Most calls carry no credential: answer those without a promise.
    if (req.headers[headerNames.apiKey] === undefined && req.headers.authorization === undefined) return next();
    void identify(req, res, next, deps);
  };
}

/** Verifies the credential the request carries; records the principal or the failure on `res.locals`. */
async function identify(
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  next: Parameters<RequestHandler>[2],
  deps: { keys: KeyManager; storage: Storage; clock: Clock },
): Promise<void> {
  const locals = authLocals(res);
  try {
    const outcome = await resolveCredential(req.headers, deps);
    if ('failure' in outcome) locals.authFailure = unauthorized(outcome.failure);
    else locals.principal = outcome.principal;
  } catch (error) {
    return next(error);
  }
  next();
}

async function resolveCredential(
  headers: Parameters<RequestHandler>[0]['headers'],
  deps: { keys: KeyManager; storage: Storage; clock: Clock },
): Promise<{ principal: Principal } | { failure: string }> {
  const apiKey = headers[headerNames.apiKey];
  if (apiKey !== undefined) {
    const result = await deps.keys.verify(Array.isArray(apiKey) ? '' : apiKey.trim());
    return result.valid
      ? { principal: { kind: 'api-key', keyId: result.keyId, ownerId: result.ownerId } }
      : { failure: keyFailureDetail(result) };
  }
  const match = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
  if (!match || !sessionTokenShape.test(match[1]!)) return { failure: authMessages.malformedAuthorization };
  const session = await deps.storage.findSessionByTokenHash(hashSecret(match[1]!));
  const now = deps.clock.now();
  if (!session || Date.parse(session.idleExpiresAt) <= now || Date.parse(session.absoluteExpiresAt) <= now) {
    return { failure: authMessages.invalidSession };
  }
  return { principal: { kind: 'session', userId: session.userId, sessionId: session.id } };
}

export const rejectFailedAuthentication: RequestHandler = (_req, res, next) => {
  next(authLocals(res).authFailure);
};

/** For routes that need an API key specifically (the health check). */
export function requireApiKey(res: Response): Extract<Principal, { kind: 'api-key' }> {
  const principal = authLocals(res).principal;
  if (principal.kind !== 'api-key') throw unauthorized(authMessages.missingApiKey, [apiKeyChallenge]);
  return principal;
}
