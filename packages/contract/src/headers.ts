import { limits } from './limits.js';

/** Header names shared by server and clients (lowercase, as Node exposes them). */
export const headerNames = {
  apiKey: 'x-api-key',
  requestId: 'x-request-id',
  authorization: 'authorization',
  retryAfter: 'retry-after',
  rateLimit: 'ratelimit',
  rateLimitPolicy: 'ratelimit-policy',
  link: 'link',
  wwwAuthenticate: 'www-authenticate',
} as const;

/**
 * The response headers a script on another origin may read from the public reads (CORS'
 * `Access-Control-Expose-Headers`): what a browser client needs to page, retry and report.
 */
export const corsExposedHeaders = [
  headerNames.requestId,
  headerNames.link,
  headerNames.rateLimit,
  headerNames.rateLimitPolicy,
  headerNames.retryAfter,
  headerNames.wwwAuthenticate,
] as const;

/**
 * The session cookie (SPEC §3.5). Under an https `PUBLIC_URL` the `__Host-` name is used, which browsers only
 * accept with `Secure`, `Path=/` and no `Domain`: the cookie cannot be set or shadowed by a sibling host.
 */
export const sessionCookieNames = {
  plain: 'releases_session',
  secure: '__Host-releases_session',
} as const;

/** An `x-request-id` the server echoes rather than replaces (SPEC §3.4). */
export const requestIdPattern = new RegExp(`^[A-Za-z0-9._:-]{1,${limits.maxRequestIdLength}}$`);

/** Scheme names as they appear in the OpenAPI document (`ApiKeyAuth` is the interface's own name). */
export const securitySchemes = {
  apiKey: 'ApiKeyAuth',
  bearer: 'BearerAuth',
  /** The session cookie: the same session as `BearerAuth`, carried the way browsers carry it. */
  sessionCookie: 'SessionCookie',
} as const;
