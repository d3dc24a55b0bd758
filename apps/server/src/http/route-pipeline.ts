import { limits, type RouteMetadata } from '@releases/contract';
import type { AppRoute } from '@ts-rest/core';
import type { Express, RequestHandler } from 'express';
import type { Authenticator } from '../auth/authenticate.js';
import { presentedCredential } from '../auth/credentials.js';
import type { SessionCookie } from '../auth/session-cookie.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { authenticateRequest, enforceRouteAuth } from './authentication.js';
import { csrfGuard } from './csrf.js';
import { contractRoutes, jsonBody } from './guards.js';
import { callerRateLimit, type CallerQuotas, type FailedCredentialGuard } from './rate-limit.js';
import { requestContext } from './request-context.js';

export interface RoutePipelineDeps extends Authenticator {
  config: Config;
  clock: Clock;
  cookie: SessionCookie;
  quotas: CallerQuotas;
  failedCredentials: FailedCredentialGuard;
}

/**
 * What runs for every contract route, in order, before its handler:
 *
 * 1. identify the route and read the presented credential (no I/O);
 * 2. refuse addresses that already sent too many failed credentials, before any lookup (unless the
 *    credential proved good lately);
 * 3. verify the credential (the one lookup), and remember whether it proved good;
 * 4. count the request against the caller's quota;
 * 5. apply the route's credential rule (401 / 403), then CSRF;
 * 6. only then read the body, so an unauthenticated or rate-limited request never costs a parse.
 *
 * Mounted on each route's own method and path ahead of the ts-rest handler, so the route is known from the
 * contract itself rather than from anything the request says.
 */
export function mountRoutePipeline(app: Express, deps: RoutePipelineDeps): void {
  const { failedCredentials } = deps;
  const shared: RequestHandler[] = [
    failedCredentials.refuse,
    authenticateRequest(deps),
    failedCredentials.learn,
    callerRateLimit(deps.quotas),
    enforceRouteAuth(deps),
    csrfGuard(deps.config.publicUrl),
    jsonBody(limits.maxJsonBodyBytes),
  ];
  for (const route of contractRoutes()) {
    app[methodOf(route)](route.path, identify(route, deps.cookie.name), ...shared);
  }
}

function identify(route: AppRoute, sessionCookieName: string): RequestHandler {
  const metadata = route.metadata as RouteMetadata;
  return (req, _res, next) => {
    const context = requestContext(req);
    context.route = route;
    context.metadata = metadata;
    context.credential = presentedCredential(req.headers, metadata.auth, sessionCookieName);
    next();
  };
}

function methodOf(route: AppRoute): 'get' | 'post' | 'put' | 'patch' | 'delete' {
  return route.method.toLowerCase() as Lowercase<AppRoute['method']>;
}
