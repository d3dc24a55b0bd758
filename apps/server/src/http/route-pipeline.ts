import type { Express, RequestHandler } from 'express';
import { admissionHeaders, type Admit } from '../auth/admission.js';
import type { RouteEntry, RouteTable } from './route-table.js';
import { jsonBody } from './json-body.js';
import { malformedQueryProblem } from './query-string.js';
import { requestContext } from './request-context.js';

/**
 * What runs for every contract route before its handler: the route's admission (`auth/admission.ts`: the
 * credential, the failed-credential guard, verification, the quota, the route's rule and CSRF), whose headers
 * go on the response, then the body, read only once the request is admitted, so an unauthenticated or
 * rate-limited request never costs a parse.
 *
 * Mounted on each route's own method and path ahead of the ts-rest handler, so the route is known from the
 * contract itself rather than from anything the request says.
 */
export function mountRoutePipeline(app: Express, routes: RouteTable, admit: Admit): void {
  for (const entry of routes.entries) {
    app[methodOf(entry)](entry.route.path, admitted(entry, admit), jsonBody(entry.maxBodyBytes));
  }
}

function admitted({ route, metadata }: RouteEntry, admit: Admit): RequestHandler {
  return (req, res, next) => {
    const context = requestContext(req);
    context.route = route;
    context.pathKnown = true;
    admit(metadata, req).then((admission) => {
      for (const [name, value] of admissionHeaders(admission)) {
        if (name === 'set-cookie') res.append(name, value);
        else res.setHeader(name, value);
      }
      context.caller = admission.caller;
      // Before ts-rest reads the query: a malformed escape is a 400 naming its parameter, not text to search.
      next(admission.problem ?? malformedQueryProblem(req.query));
    }, next);
  };
}

function methodOf({ route }: RouteEntry): 'get' | 'post' | 'put' | 'patch' | 'delete' {
  return route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
}
