import { headerNames } from '@releases/contract';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { contractRoutes } from './contract-routes.js';
import type { RouteMetadata } from '@releases/contract';

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

/**
 * CORS (SPEC §10): open to `CORS_ORIGINS` (default any origin, no credentials) on the public reads, with
 * `x-api-key` allowed as a request header; closed on everything that takes a session.
 */
export function publicReadCors(corsOrigins: string[]): RequestHandler {
  return cors({
    origin: corsOrigins.includes('*') ? '*' : corsOrigins,
    methods: ['GET', 'HEAD'],
    allowedHeaders: [headerNames.apiKey, headerNames.requestId],
    exposedHeaders,
    maxAge: 600,
  });
}
