import type { RequestHandler } from 'express';
import { HttpProblem } from '../kernel/http-problem.js';
import type { RouteTable } from './route-table.js';

/**
 * Answers what no route matched: 405 with `Allow` when the path exists under another method, else 404.
 * Built from the contract, so it can never disagree with the routes.
 */
export function unmatchedRoute(routes: RouteTable): RequestHandler {
  return (req, _res, next) => {
    const methods = routes.methodsAt(req.path);
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
