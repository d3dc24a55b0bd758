import { contract, type RouteMetadata } from '@releases/contract';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';

/** A route of the contract with its metadata typed. */
export interface ContractRoute {
  route: AppRoute;
  metadata: RouteMetadata;
  /** Matches the route's path exactly (no trailing slash, no other spelling). */
  pattern: RegExp;
}

/** Every route of the contract, flattened. */
export function contractRoutes(router: AppRouter = contract): AppRoute[] {
  return Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : contractRoutes(entry)));
}

/** A path of the contract (`/api/v1/release/:id`) as a pattern; `slash` also allows one trailing slash. */
export function pathPattern(path: string, options: { slash?: boolean } = {}): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}${options.slash ? '/?' : ''}$`);
}

/** Every route with its metadata and exact pattern. */
export function describedRoutes(): ContractRoute[] {
  return contractRoutes().map((route) => ({
    route,
    metadata: route.metadata as RouteMetadata,
    pattern: pathPattern(route.path),
  }));
}
