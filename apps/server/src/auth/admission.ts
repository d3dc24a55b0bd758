import type { RouteMetadata } from '@releases/contract';
import type { IncomingMessage } from 'node:http';
import type { Metrics } from '../metrics/metrics.js';
import { HttpProblem } from '../kernel/http-problem.js';
import {
  addressPartition,
  quotaHeaders,
  rateLimitedProblem,
  type CallerQuotas,
  type QuotaCount,
  type QuotaUse,
} from '../rate-limit/quotas.js';
import type { Caller } from './caller.js';
import { presentedCredential } from './credentials.js';
import { csrfProblem } from './csrf.js';
import type { FailedCredentialGuard } from './failed-credentials.js';
import type { SessionCookie } from './session-cookie.js';
import { sessionExpiresAt } from './sessions.js';
import {
  authMessages,
  challengesByAuth,
  unauthorized,
  verifyCredential,
  type Authenticator,
} from './verify-credential.js';

/** What the server decided about a request before any route handler runs. */
export interface Admission {
  /** Who is calling: anonymous unless a credential verified. */
  caller: Caller;
  /** The request's count against its quota (the `RateLimit` headers); undefined when it was not counted. */
  quota: QuotaUse | undefined;
  /** Why the request is refused; undefined when it may go on to its route. */
  problem: HttpProblem | undefined;
  /**
   * What the answer's `Cache-Control` must say about who may keep it: `no-store` when it carries a session or
   * refuses one (no cache may keep it); `private` when it is for one API key's caller under
   * `RELEASES_AUTH=required` (a shared cache must not give it to another caller, who may have no key at all);
   * undefined when any cache may keep it.
   */
  cacheControl: 'no-store' | 'private' | undefined;
  /** A `Set-Cookie` for the session cookie: renewed (its expiry slid) or cleared (it no longer works). */
  setCookie: string | undefined;
}

/** Admits a request to a route of the contract; see `createAdmission`. */
export type Admit = (route: RouteMetadata, req: IncomingMessage) => Promise<Admission>;

export interface AdmissionDeps extends Authenticator {
  guard: FailedCredentialGuard;
  quotas: CallerQuotas;
  cookie: SessionCookie;
  /** `RELEASES_AUTH`: under `required`, `optional` routes turn anonymous callers away. */
  authMode: 'optional' | 'required';
  /** `PUBLIC_URL`'s origin, which cookie-authenticated unsafe requests must come from (CSRF). */
  ownOrigin: string;
  clientAddress: (req: IncomingMessage) => string;
  now: () => number;
  /** Told of each 429 a quota or the guard gives. */
  metrics: Pick<Metrics, 'rateLimitRefusal'>;
}

const anonymous: Caller = { kind: 'anonymous' };
const anonymousCaller = { caller: anonymous };

/**
 * The one admission function: every request to a contract route goes through it once, whoever handles the
 * request (the Express pipeline, or the answer cache in front of it). In this order:
 *
 * 1. read the credential the request presents, for the route's rule (`metadata.auth`), without any lookup;
 * 2. refuse an address that already presented too many failed credentials, before any lookup (unless this
 *    credential proved good lately on this instance);
 * 3. verify the credential (the one lookup), and let the guard learn whether it proved good;
 * 4. count the request against its quota (`metadata.quota`): over it is a 429, also for a bad credential;
 * 5. a credential that failed is its 401 (403, 429), never a downgrade to anonymous;
 * 6. the route's rule: `optional` routes refuse anonymous callers under `RELEASES_AUTH=required`, `api-key`
 *    routes take only an API key, `session` routes only a session (an API key is a 403);
 * 7. CSRF (`auth/csrf.ts`);
 * 8. a cookie session whose expiry slid gets its cookie renewed.
 *
 * A request is admitted once: asking again for the same request and route gives the same decision (nothing is
 * verified or counted twice), so a layer that hands a request on after admitting it needs to pass nothing along.
 */
export function createAdmission(deps: AdmissionDeps): Admit {
  // The decision rides on the request itself, under a key of this admission function's own. (A WeakMap keyed
  // by requests did the same, but each of its entries is an ephemeron the garbage collector must trace
  // specially: thousands a second under load.)
  const decided = Symbol('admission');
  return (route, req) => {
    const admitted = req as IncomingMessage & { [decided]?: { route: RouteMetadata; admission: Promise<Admission> } };
    const known = admitted[decided];
    if (known?.route === route) return known.admission;
    const admission = decide(deps, route, req);
    admitted[decided] = { route, admission };
    return admission;
  };
}

async function decide(deps: AdmissionDeps, route: RouteMetadata, req: IncomingMessage): Promise<Admission> {
  const credential = presentedCredential(req.headers, route.auth, deps.cookie.name);
  const viaCookie = (credential.kind === 'session' || credential.kind === 'malformed') && credential.via === 'cookie';
  const admission: Admission = {
    caller: anonymous,
    quota: undefined,
    problem: undefined,
    cacheControl:
      credential.kind === 'session' || (credential.kind === 'malformed' && credential.via !== 'api-key')
        ? 'no-store'
        : undefined,
    setCookie: undefined,
  };
  const address = deps.clientAddress(req);

  const flooded = deps.guard.refusal(credential, address);
  if (flooded) {
    deps.metrics.rateLimitRefusal('failed-credentials');
    return { ...admission, problem: flooded };
  }

  const challenges = challengesByAuth[route.auth];
  // Most requests carry no credential: those are decided without a promise, so an anonymous read costs none.
  const verified = credential.kind === 'none' ? anonymousCaller : await verifyCredential(credential, deps, challenges);
  const failure = 'failure' in verified ? verified.failure : undefined;
  deps.guard.learn(credential, address, failure === undefined);
  const caller = 'caller' in verified ? verified.caller : anonymous;

  const counted = countQuota(deps.quotas, route, caller, failure !== undefined, address);
  admission.quota = counted instanceof Promise ? await counted : counted;
  if (admission.quota?.exceeded) {
    deps.metrics.rateLimitRefusal(admission.quota.bucket);
    return { ...admission, problem: rateLimitedProblem(admission.quota.resetSeconds, 'Too many requests.') };
  }
  if (failure) {
    // A session cookie that no longer works is dropped, so the browser's next request is anonymous.
    if (viaCookie && failure.status === 401) admission.setCookie = deps.cookie.clearing(deps.now());
    return { ...admission, problem: failure };
  }
  admission.caller = caller;
  if (caller.kind === 'api-key' && deps.authMode === 'required') admission.cacheControl ??= 'private';
  admission.problem =
    routeRuleProblem(route, caller, deps.authMode, challenges) ??
    csrfProblem(req.method ?? 'GET', req.headers, caller, route, deps.ownOrigin);
  if (
    admission.problem === undefined &&
    caller.kind === 'session' &&
    caller.extended &&
    credential.kind === 'session'
  ) {
    if (credential.via === 'cookie') {
      admission.setCookie = deps.cookie.setting(credential.token, sessionExpiresAt(caller.session), deps.now());
    }
  }
  return admission;
}

/** Counts the request in its quota (SPEC §4); a credential that failed counts like an anonymous call. */
function countQuota(
  quotas: CallerQuotas,
  route: RouteMetadata,
  caller: Caller,
  failed: boolean,
  address: string,
): QuotaCount {
  const quota = route.quota ?? 'caller';
  if (quota === 'none') return undefined;
  if (quota === 'sign-in') return quotas.count('auth', addressPartition(address, 'auth'));
  if (failed || caller.kind === 'anonymous') return quotas.count('anonymous', addressPartition(address));
  return caller.kind === 'api-key'
    ? quotas.count('api-key', `key:${caller.keyId}`)
    : quotas.count('session', `user:${caller.userId}`);
}

function routeRuleProblem(
  route: RouteMetadata,
  caller: Caller,
  authMode: AdmissionDeps['authMode'],
  challenges: readonly string[],
): HttpProblem | undefined {
  switch (route.auth) {
    case 'optional':
      return authMode === 'required' && caller.kind === 'anonymous'
        ? unauthorized(authMessages.missingCredential, challenges)
        : undefined;
    case 'api-key':
      return caller.kind === 'api-key' ? undefined : unauthorized(authMessages.missingApiKey, challenges);
    case 'session':
      if (caller.kind === 'api-key') return new HttpProblem('forbidden', authMessages.apiKeyOnSessionRoute);
      return caller.kind === 'session' ? undefined : unauthorized(authMessages.missingSession, challenges);
    case 'none':
      return undefined;
  }
}

/** The headers an admission adds to whatever answers the request, in the order they are written. */
export function admissionHeaders(admission: Admission): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  if (admission.quota) headers.push(...quotaHeaders(admission.quota));
  if (admission.cacheControl !== undefined) headers.push(['cache-control', admission.cacheControl]);
  if (admission.setCookie !== undefined) headers.push(['set-cookie', admission.setCookie]);
  return headers;
}
