import type { RouteMetadata } from '@releases/contract';
import type { AppRoute } from '@ts-rest/core';
import type { IncomingMessage } from 'node:http';
import type { Caller, SessionCaller } from '../auth/caller.js';
import type { PresentedCredential } from '../auth/credentials.js';
import type { HttpProblem } from '../problems.js';
import type { QuotaUse } from './rate-limit.js';

/**
 * Everything the server knows about a request beyond Express's own fields: which contract route it matched,
 * the credential it presented, and who is calling. Set once by the route pipeline (`http/route-pipeline.ts`)
 * and read through `requestContext(req)` everywhere else.
 */
export interface RequestContext {
  /** The contract route, once matched; undefined for paths outside the contract (404, 405, static files). */
  route: AppRoute | undefined;
  /** The route's declared credential rule; `none` until a route matched. */
  metadata: RouteMetadata;
  /** What the request carried, parsed without any lookup. */
  credential: PresentedCredential;
  /** Who is calling, once the credential has been verified. */
  caller: Caller;
  /** Set when a credential was presented but is not valid; answered after the rate limiter counted it. */
  authFailure: HttpProblem | undefined;
  /** Set when the request was counted against its quota before it reached the app (the public read cache). */
  countedQuota: QuotaUse | undefined;
  /**
   * Set when the credential was verified before the request reached the app (the public read cache), so that
   * the app does not verify it twice: a session whose expiry that verification moved must renew its cookie.
   */
  verifiedCaller: Caller | undefined;
  /**
   * Set by a route whose 200 answer may be given again, unchanged, to the next anonymous request for the same
   * URL while the catalogue stays the same: the body as text, split where `generated_at` goes.
   */
  replayableBody: ReplayableBody | undefined;
}

/** A JSON body as text; the time it was generated is `generatedAt`, placed between `before` and `after`. */
export interface ReplayableBody {
  before: string;
  after: string;
}

const anonymous: Caller = { kind: 'anonymous' };
const noCredential: PresentedCredential = { kind: 'none' };
const unmatched: RouteMetadata = { auth: 'none' };

// A WeakMap rather than a property on `req`: typed without casts, invisible to anything that serializes the
// request, and gone with the request.
const contexts = new WeakMap<IncomingMessage, RequestContext>();

/** The request's context; a fresh anonymous one for requests no route has matched. */
export function requestContext(req: IncomingMessage): RequestContext {
  let context = contexts.get(req);
  if (!context) {
    context = {
      route: undefined,
      metadata: unmatched,
      credential: noCredential,
      caller: anonymous,
      authFailure: undefined,
      countedQuota: undefined,
      verifiedCaller: undefined,
      replayableBody: undefined,
    };
    contexts.set(req, context);
  }
  return context;
}

/**
 * The signed-in caller of a `session` route. The route pipeline has refused everyone else before the handler
 * runs, so anything else here is a bug in the pipeline, not a client error.
 */
export function sessionCaller(req: IncomingMessage): SessionCaller {
  const caller = requestContext(req).caller;
  if (caller.kind !== 'session') throw new Error(`a ${caller.kind} caller reached a session-only route`);
  return caller;
}
