import type { AppRoute } from '@ts-rest/core';
import type { IncomingMessage } from 'node:http';
import type { Caller, SessionCaller } from '../auth/caller.js';

/**
 * What the server knows about a request beyond Express's own fields: the contract route it matched and who is
 * calling, as its admission found (`auth/admission.ts`). Set once by the route pipeline
 * (`http/route-pipeline.ts`) and read through `requestContext(req)` everywhere else.
 */
export interface RequestContext {
  /** The contract route, once matched; undefined for paths outside the contract (404, 405, static files). */
  route: AppRoute | undefined;
  /** Who is calling, once admitted. */
  caller: Caller;
  /**
   * Whether the path is one the server knows (a contract route, a file of the web app, one of its pages), and
   * so may be logged; a path a client made up is logged only as unknown.
   */
  pathKnown: boolean;
}

const anonymous: Caller = { kind: 'anonymous' };

// A WeakMap rather than a property on `req`: typed without casts, invisible to anything that serializes the
// request, and gone with the request.
const contexts = new WeakMap<IncomingMessage, RequestContext>();

/** The request's context; a fresh anonymous one for requests no route has matched. */
export function requestContext(req: IncomingMessage): RequestContext {
  let context = contexts.get(req);
  if (!context) {
    context = { route: undefined, caller: anonymous, pathKnown: false };
    contexts.set(req, context);
  }
  return context;
}

/**
 * The signed-in caller of a `session` route. Admission has refused everyone else before the handler runs, so
 * anything else here is a bug, not a client error.
 */
export function sessionCaller(req: IncomingMessage): SessionCaller {
  const caller = requestContext(req).caller;
  if (caller.kind !== 'session') throw new Error(`a ${caller.kind} caller reached a session-only route`);
  return caller;
}
