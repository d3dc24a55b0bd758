import type { RouteMetadata } from '@releases/contract';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpProblem } from '../kernel/http-problem.js';
import type { Caller } from './caller.js';

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const csrfMessages = {
  crossSite:
    'This request changes something with a session cookie but did not come from this service\'s own pages (cross-site request refused). Call it from the web app, or send the session as "Authorization: Bearer <token>".',
  crossSiteSignIn: "Signing up or in is only possible from this service's own pages or from outside a browser.",
} as const;

/**
 * Cross-site request forgery (SPEC §4): the problem to answer with, or undefined.
 *
 * A browser attaches the session cookie to requests any site makes, so an unsafe request authenticated by that
 * cookie must prove it came from our origin: `Sec-Fetch-Site: same-origin`, or (from browsers that do not send
 * it) an `Origin` equal to `PUBLIC_URL`. Nothing else passes, not even a request with neither header.
 * Credentials in headers (`x-api-key`, `Authorization`) cannot be attached by another site, so those requests
 * are exempt.
 *
 * Routes marked `csrf: 'sign-in'` take no session, but a forged one would sign the victim into the attacker's
 * account: a browser that says the request is cross-site is refused there too (clients outside browsers send
 * neither header).
 */
export function csrfProblem(
  method: string,
  headers: IncomingHttpHeaders,
  caller: Caller,
  metadata: RouteMetadata,
  ownOrigin: string,
): HttpProblem | undefined {
  if (!unsafeMethods.has(method)) return undefined;
  const site = headers['sec-fetch-site'];
  const origin = headers.origin;
  if (caller.kind === 'session' && caller.via === 'cookie') {
    const sameOrigin = site !== undefined ? site === 'same-origin' : origin === ownOrigin;
    return sameOrigin ? undefined : new HttpProblem('forbidden', csrfMessages.crossSite);
  }
  if (metadata.csrf === 'sign-in') {
    const crossSite =
      (site !== undefined && site !== 'same-origin' && site !== 'none') ||
      (origin !== undefined && origin !== ownOrigin);
    return crossSite ? new HttpProblem('forbidden', csrfMessages.crossSiteSignIn) : undefined;
  }
  return undefined;
}
