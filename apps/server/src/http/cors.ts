import { corsExposedHeaders, headerNames } from '@releases/contract';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { BoundedCache } from '../kernel/bounded-cache.js';
import type { RouteTable } from './route-table.js';
import type { HeaderList } from './security-headers.js';

/** Paths of routes any origin may read (CORS), from the contract's metadata. */
export function publicReadPaths(routes: RouteTable): string[] {
  return routes.where((metadata) => metadata.publicRead).map((entry) => entry.route.path);
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
    exposedHeaders: [...corsExposedHeaders],
    maxAge: 600,
  });
  const remembered = new BoundedCache<string, HeaderList>({ max: maxRememberedOrigins });
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
      return remembered.getOrSet(origin ?? '', () => record(origin));
    },
  };
}
