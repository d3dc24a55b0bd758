import { headerNames, sessionTokenPattern, type RouteAuth } from '@releases/contract';
import { parseCookie } from 'cookie';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The credential a request presents, read from its headers without any lookup. Which headers count depends on
 * the route: `none` routes read nothing, `api-key` routes only `x-api-key` (a session there is named as the
 * problem), the others an API key, else `Authorization: Bearer`, else the session cookie.
 */
export type PresentedCredential =
  | { kind: 'none' }
  | { kind: 'api-key'; key: string }
  | { kind: 'session'; token: string; via: 'cookie' | 'bearer' }
  | { kind: 'malformed'; detail: string; via: 'api-key' | 'bearer' | 'cookie' };

const credentialMessages = {
  repeatedApiKey: `Send one ${headerNames.apiKey} header, not several.`,
  malformedAuthorization: 'The Authorization header must be "Bearer <session token>".',
  malformedSessionCookie: 'The session cookie is not one this service issued. Sign in again.',
  sessionOnApiKeyRoute: `This endpoint takes an API key in the ${headerNames.apiKey} header; a session is not accepted here.`,
} as const;

const none: PresentedCredential = { kind: 'none' };
const bearerShape = /^Bearer +(\S+) *$/i;

export function presentedCredential(
  headers: IncomingHttpHeaders,
  auth: RouteAuth,
  sessionCookieName: string,
): PresentedCredential {
  if (auth === 'none') return none;
  const apiKey = headers[headerNames.apiKey];
  if (apiKey !== undefined) {
    // Node joins repeated unknown headers with ", "; either way there is no one key to check.
    if (Array.isArray(apiKey) || apiKey.includes(',')) {
      return { kind: 'malformed', detail: credentialMessages.repeatedApiKey, via: 'api-key' };
    }
    return { kind: 'api-key', key: apiKey.trim() };
  }
  const session = sessionCredential(headers, sessionCookieName);
  if (auth === 'api-key' && session.kind !== 'none') {
    return { kind: 'malformed', detail: credentialMessages.sessionOnApiKeyRoute, via: session.via };
  }
  return session;
}

type SessionOrNone = Exclude<PresentedCredential, { kind: 'api-key' }>;
const noSession: SessionOrNone = { kind: 'none' };

function sessionCredential(headers: IncomingHttpHeaders, sessionCookieName: string): SessionOrNone {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const token = bearerShape.exec(authorization)?.[1];
    if (token === undefined || !sessionTokenPattern.test(token)) {
      return { kind: 'malformed', detail: credentialMessages.malformedAuthorization, via: 'bearer' };
    }
    return { kind: 'session', token, via: 'bearer' };
  }
  const cookieHeader = headers.cookie;
  if (cookieHeader === undefined) return noSession;
  const token = parseCookie(cookieHeader)[sessionCookieName];
  if (token === undefined) return noSession;
  if (!sessionTokenPattern.test(token)) {
    return { kind: 'malformed', detail: credentialMessages.malformedSessionCookie, via: 'cookie' };
  }
  return { kind: 'session', token, via: 'cookie' };
}
