import { contract, limits, type RouteMetadata } from '@releases/contract';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';

/** One route of the contract as the server serves it. */
export interface RouteEntry {
  /** The route's key in the contract, dotted: `release.list`, `auth.login`. */
  key: string;
  route: AppRoute;
  metadata: RouteMetadata;
  /** The path's parameter names, in order (`:id` is `id`). */
  parameters: readonly string[];
  /** The largest request body the route reads (SPEC §10); a declared larger one is refused before it is read. */
  maxBodyBytes: number;
}

/** A request's path matched to a route: the route, and its path parameters as sent (still percent-encoded). */
export interface RouteMatch {
  entry: RouteEntry;
  params: Record<string, string>;
}

interface CompiledEntry {
  entry: RouteEntry;
  /** The path exactly (no trailing slash, no other spelling). */
  exact: RegExp;
  /** The path with one trailing slash allowed, as Express also routes it. */
  loose: RegExp;
}

/**
 * The contract's routes, flattened once: the one table every part of the request path reads. Express mounts the
 * admission pipeline on its entries (`route-pipeline.ts`), the fast path finds its replayable routes in it
 * (`fast-path.ts`), what matches no route is told 404 or 405 from it (`unmatched-route.ts`), CORS opens its
 * public reads (`cors.ts`), and the metrics and the OpenAPI tests check themselves against it.
 */
export class RouteTable {
  readonly entries: readonly RouteEntry[];
  private readonly compiled: readonly CompiledEntry[];

  constructor(router: AppRouter = contract) {
    this.entries = flatten(router, []);
    this.compiled = this.entries.map((entry) => ({
      entry,
      exact: pathPattern(entry.route.path, ''),
      loose: pathPattern(entry.route.path, '/?'),
    }));
  }

  /**
   * The route serving `method` at exactly `path` (or, `loose`, with one trailing slash, as Express also routes
   * it), with its parameters; undefined when none does.
   */
  match(method: string, path: string, options: { loose?: boolean } = {}): RouteMatch | undefined {
    for (const { entry, exact, loose } of this.compiled) {
      if (entry.route.method !== method) continue;
      const found = (options.loose ? loose : exact).exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      entry.parameters.forEach((name, i) => (params[name] = found[i + 1]!));
      return { entry, params };
    }
    return undefined;
  }

  /** The methods some route serves at `path` (a trailing slash allowed), for a 405's `Allow`. */
  methodsAt(path: string): Set<string> {
    return new Set(this.compiled.filter(({ loose }) => loose.test(path)).map(({ entry }) => entry.route.method));
  }

  /** The entries whose metadata `pick` chooses. */
  where(pick: (metadata: RouteMetadata) => boolean | undefined): RouteEntry[] {
    return this.entries.filter((entry) => pick(entry.metadata) === true);
  }
}

function flatten(router: AppRouter, prefix: readonly string[]): RouteEntry[] {
  return Object.entries(router).flatMap(([name, value]): RouteEntry[] => {
    const key = [...prefix, name];
    if (!isAppRoute(value)) return flatten(value, key);
    return [
      {
        key: key.join('.'),
        route: value,
        // The contract declares every route's metadata with `metadata(...)`, typed as `RouteMetadata`; ts-rest
        // keeps it as `unknown`.
        metadata: value.metadata as RouteMetadata,
        parameters: value.path
          .split('/')
          .filter((segment) => segment.startsWith(':'))
          .map((segment) => segment.slice(1)),
        maxBodyBytes: limits.maxJsonBodyBytes,
      },
    ];
  });
}

/** A contract path (`/api/v1/release/:id`) as a pattern capturing each parameter, followed by `ending`. */
function pathPattern(path: string, ending: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}${ending}$`);
}
