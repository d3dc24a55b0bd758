import { headerNames, type RouteMetadata } from '@releases/contract';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { contractRoutes } from './contract-routes.js';
import type { HeaderList } from './security-headers.js';

/** Response headers a script on another origin may read. */
export const exposedHeaders = [
  headerNames.requestId,
  headerNames.link,
  headerNames.rateLimit,
  headerNames.rateLimitPolicy,
  headerNames.retryAfter,
  headerNames.wwwAuthenticate,
];

/** Paths of routes any origin may read (CORS), from the contract's metadata. */
export function publicReadPaths(): string[] {
  return contractRoutes()
    .filter((route) => (route.metadata as RouteMetadata | undefined)?.publicRead)
    .map((route) => route.path);
}

/** Origins whose CORS headers are remembered, at most. */
const maxRememberedOrigins = 1_000;

export interface PublicReadCors {
  /** The middleware, preflight requests included. */
  middleware: RequestHandler;
  /** The headers the middleware sets on a GET from `origin` (or without one), remembered per origin. */
  headersFor(origin: string | undefined): HeaderList;
}

/**
 * CORS (SPEC §10): open to `CORS_ORIGINS` (default any origin, no credentials) on the public reads, with
 * `x-api-key` allowed as a request header; closed on everything that takes a session. The `cors` package
 * decides; what it answers to a GET depends only on the request's `Origin`, so the fast path
 * (`fast-path.ts`) reuses its answer for each origin instead of running it per request.
 */
export function publicReadCors(corsOrigins: string[]): PublicReadCors {
  const middleware = cors({
    origin: corsOrigins.includes('*') ? '*' : corsOrigins,
    methods: ['GET', 'HEAD'],
    allowedHeaders: [headerNames.apiKey, headerNames.requestId],
    exposedHeaders,
    maxAge: 600,
  });
  const remembered = new LRUCache<string, HeaderList>({ max: maxRememberedOrigins });
  const record = (origin: string | undefined): HeaderList => {
    const headers: Array<[string, string]> = [];
    const response = {
      getHeader: (name: string) => headers.find(([known]) => known === name.toLowerCase())?.[1],
      setHeader: (name: string, value: string | number | readonly string[]) => {
        const lower = name.toLowerCase();
        const text = Array.isArray(value) ? value.join(', ') : String(value);
        const at = headers.findIndex(([known]) => known === lower);
        if (at === -1) headers.push([lower, text]);
        else headers[at] = [lower, text];
      },
    };
    let passed = false;
    middleware({ method: 'GET', headers: origin === undefined ? {} : { origin } }, response as never, () => {
      passed = true;
    });
    if (!passed) throw new Error('cors did not let a GET through synchronously');
    return headers;
  };
  return {
    middleware,
    headersFor(origin) {
      const key = origin ?? '';
      let headers = remembered.get(key);
      if (headers === undefined) remembered.set(key, (headers = record(origin)));
      return headers;
    },
  };
}
