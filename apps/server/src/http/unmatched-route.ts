import type { RequestHandler } from 'express';
import { HttpProblem } from '../problems.js';
import { contractRoutes, pathPattern } from './contract-routes.js';

/**
 * Answers what no route matched: 405 with `Allow` when the path exists under another method, else 404.
 * Built from the contract, so it can never disagree with the routes.
 */
export function unmatchedRoute(): RequestHandler {
  const patterns = contractRoutes().map((route) => ({
    pattern: pathPattern(route.path, { slash: true }),
    method: route.method,
  }));
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
