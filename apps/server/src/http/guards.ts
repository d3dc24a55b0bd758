import { contract, headerNames, type RouteMetadata } from '@releases/contract';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import express, { type RequestHandler } from 'express';
import { HttpProblem } from '../problems.js';

/** Every route of the contract, flattened. */
export function contractRoutes(router: AppRouter = contract): AppRoute[] {
  return Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : contractRoutes(entry)));
}

function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Answers what no route matched: 405 with `Allow` when the path exists under another method, else 404.
 * Built from the contract, so it can never disagree with the routes.
 */
export function unmatchedRoute(): RequestHandler {
  const patterns = contractRoutes().map((route) => ({ pattern: pathPattern(route.path), method: route.method }));
  return (req, _res, next) => {
    const methods = new Set<string>(patterns.filter((p) => p.pattern.test(req.path)).map((p) => p.method));
    if (methods.size > 0) {
      if (methods.has('GET')) methods.add('HEAD');
      const allow = [...methods].sort().join(', ');
      return next(
        new HttpProblem('method-not-allowed', `${req.method} is not supported here. Use ${allow}.`, {
          headers: { allow },
        }),
      );
    }
    next(new HttpProblem('not-found', `There is nothing at ${req.method} ${req.path}. The API reference is at /docs.`));
  };
}

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Request bodies: only on methods that take one, only JSON (415 otherwise), at most `maxBytes` (413), and
 * checked before parsing so nothing else reads them. Bodyless requests skip all of it.
 */
export function jsonBody(maxBytes: number): RequestHandler {
  const parse = express.json({ limit: maxBytes, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => {
    if (!bodyMethods.has(req.method)) return next();
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody) return next();
    if (!req.is(['application/json', 'application/*+json'])) {
      const sent = req.headers['content-type'] ?? 'none';
      return next(new HttpProblem('unsupported-media-type', `Request bodies must be application/json; got ${sent}.`));
    }
    parse(req, res, next);
  };
}

/** Paths of routes any origin may read (CORS), from the contract's metadata. */
export function publicReadPaths(): string[] {
  return contractRoutes()
    .filter((route) => (route.metadata as RouteMetadata | undefined)?.publicRead)
    .map((route) => route.path);
}

export const exposedHeaders = [
  headerNames.requestId,
  headerNames.link,
  headerNames.rateLimit,
  headerNames.rateLimitPolicy,
  headerNames.retryAfter,
  headerNames.wwwAuthenticate,
];
