import type { RouteAuth } from '@releases/contract';
import type { RequestHandler } from 'express';
import {
  apiKeyChallenge,
  authMessages,
  bearerChallenge,
  unauthorized,
  verifyCredential,
  type Authenticator,
} from '../auth/authenticate.js';
import type { SessionCookie } from '../auth/session-cookie.js';
import { sessionExpiresAt } from '../auth/sessions.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { HttpProblem } from '../problems.js';
import { requestContext } from './request-context.js';

/** The `WWW-Authenticate` challenges of a route: the schemes it accepts. */
const challengesByAuth: Record<RouteAuth, readonly string[]> = {
  none: [],
  optional: [apiKeyChallenge, bearerChallenge],
  'api-key': [apiKeyChallenge],
  session: [bearerChallenge],
};

/**
 * Verifies the credential the request presented (one lookup, cached by the key manager) and records the
 * caller, or the failure, in the request context. The failure is answered later, by `enforceRouteAuth`, so
 * that the rate limiter counts it first.
 */
export function authenticateRequest(deps: Authenticator): RequestHandler {
  return (req, _res, next) => {
    const context = requestContext(req);
    // Most calls carry no credential: answer those without a promise.
    if (context.credential.kind === 'none') return next();
    if (context.verifiedCaller) {
      context.caller = context.verifiedCaller;
      return next();
    }
    verifyCredential(context.credential, deps, challengesByAuth[context.metadata.auth]).then((outcome) => {
      if ('failure' in outcome) context.authFailure = outcome.failure;
      else context.caller = outcome.caller;
      next();
    }, next);
  };
}

/**
 * Applies the route's declared credential rule (`metadata.auth` in the contract), after rate limiting:
 * - a presented credential that failed is its 401 (403, 429), never a downgrade to anonymous;
 * - `optional` routes refuse anonymous callers when `RELEASES_AUTH=required`;
 * - `api-key` routes take only an API key; `session` routes only a session, and refuse an API key with 403.
 * Responses that carry a session are never cached, and a cookie session is renewed when it slid.
 */
export function enforceRouteAuth(deps: { config: Config; cookie: SessionCookie; clock: Clock }): RequestHandler {
  return (req, res, next) => {
    const context = requestContext(req);
    const { credential, caller, metadata } = context;
    if (credential.kind === 'session' || (credential.kind === 'malformed' && credential.via !== 'api-key')) {
      res.setHeader('cache-control', 'no-store');
    }
    if (context.authFailure) {
      // A session cookie that no longer works is dropped, so the browser's next request is anonymous.
      const viaCookie =
        (credential.kind === 'session' || credential.kind === 'malformed') && credential.via === 'cookie';
      if (viaCookie && context.authFailure.status === 401) deps.cookie.clear(res);
      return next(context.authFailure);
    }
    const challenges = challengesByAuth[metadata.auth];
    switch (metadata.auth) {
      case 'optional':
        if (deps.config.authMode === 'required' && caller.kind === 'anonymous') {
          return next(unauthorized(authMessages.missingCredential, challenges));
        }
        break;
      case 'api-key':
        if (caller.kind !== 'api-key') return next(unauthorized(authMessages.missingApiKey, challenges));
        break;
      case 'session':
        if (caller.kind === 'api-key') return next(new HttpProblem('forbidden', authMessages.apiKeyOnSessionRoute));
        if (caller.kind !== 'session') return next(unauthorized(authMessages.missingSession, challenges));
        break;
      case 'none':
        break;
    }
    if (caller.kind === 'session' && caller.extended && credential.kind === 'session' && credential.via === 'cookie') {
      deps.cookie.set(res, credential.token, sessionExpiresAt(caller.session), deps.clock.now());
    }
    next();
  };
}
