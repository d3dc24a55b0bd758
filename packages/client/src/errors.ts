import { parseRetryAfter } from './retry.js';
import type { Problem, ProblemFieldError, ProblemKind } from './types.js';

/*
 * Every class sets `name` as a string literal rather than from `new.target.name`: minifiers rename classes,
 * and `error.name` must survive a user's production bundle.
 *
 * This module is shared by both entry points: the build puts it in one chunk that `index` and `validation`
 * import, so there is one `ReleasesError` class however the SDK is imported.
 */

/**
 * The base of every error the SDK throws for the API, the network or a bad argument. Two things are not
 * wrapped: an abort rejects with your signal's own reason, and an exception thrown by a `fetch` you passed
 * in (a bug, not a network failure) propagates as it is.
 */
export class ReleasesError extends Error {
  /** Always `'ReleasesError'`, whatever a minifier does to class names. */
  override name = 'ReleasesError';
}

/** The API answered with a non-2xx status. Subclasses by problem type and status follow. */
export class APIError extends ReleasesError {
  /** Always `'APIError'`, whatever a minifier does to class names. */
  override name = 'APIError';
  /** HTTP status of the response. */
  readonly status: number;
  /** The RFC 9457 problem body, when the response carried one. */
  readonly problem: Problem | undefined;
  /** The `x-request-id` of the failed request: quote it when you report a problem. */
  readonly requestId: string | undefined;
  /** The response headers (`Retry-After`, `WWW-Authenticate`, `RateLimit`...). */
  readonly headers: Headers;
  /**
   * The problem kind the body's `type` names, e.g. `'rate-limited'` or `'invalid-cursor'` (the API's problem
   * types, `{service}/problems/<kind>`); a kind a newer server adds comes through as it is. Undefined when
   * the body was not a problem (a proxy's error page).
   * @example if (error instanceof APIError && error.kind === 'invalid-cursor') restartPagination();
   */
  readonly kind: ProblemKind | (string & {}) | undefined;

  /**
   * Built by the SDK from a response; you only construct one to fake the SDK in your own tests.
   * @param fallbackMessage Used in the message when the body is not a problem (a proxy's HTML page).
   */
  constructor(status: number, problem: Problem | undefined, headers: Headers, fallbackMessage?: string) {
    const requestId = headers.get('x-request-id') ?? undefined;
    const what = problem ? `${problem.title}: ${problem.detail}` : (fallbackMessage ?? 'request failed');
    super(`${status} ${what}${requestId ? ` (request id ${requestId})` : ''}`);
    this.status = status;
    this.problem = problem;
    this.requestId = requestId;
    this.headers = headers;
    this.kind = kindOfType(problem?.type);
  }

  /** Validation errors (`errors` of the problem), one per parameter or field; empty when there are none. */
  get errors(): ProblemFieldError[] {
    return this.problem?.errors ?? [];
  }
}

/** 400: a parameter or body field was invalid (`invalid-request`, see `errors`) or the cursor was (`invalid-cursor`). */
export class BadRequestError extends APIError {
  /** Always `'BadRequestError'`, whatever a minifier does to class names. */
  override name = 'BadRequestError';
}
/** 401: the API key or session is missing, malformed, unknown, revoked or expired; or the password was wrong. */
export class AuthenticationError extends APIError {
  /** Always `'AuthenticationError'`, whatever a minifier does to class names. */
  override name = 'AuthenticationError';
}
/** 403: the credential may not do this (an API key cannot manage keys; signing up may be closed). */
export class PermissionDeniedError extends APIError {
  /** Always `'PermissionDeniedError'`, whatever a minifier does to class names. */
  override name = 'PermissionDeniedError';
}
/** 404: no such resource (or a key of another account). */
export class NotFoundError extends APIError {
  /** Always `'NotFoundError'`, whatever a minifier does to class names. */
  override name = 'NotFoundError';
}
/** 409: the email is already registered, or the account holds the most active API keys it may. */
export class ConflictError extends APIError {
  /** Always `'ConflictError'`, whatever a minifier does to class names. */
  override name = 'ConflictError';
}
/** 429: too many requests. `retryAfterMs` says how long the server asked to wait. Retried automatically. */
export class RateLimitError extends APIError {
  /** Always `'RateLimitError'`, whatever a minifier does to class names. */
  override name = 'RateLimitError';
  /** The server's `Retry-After` in milliseconds; undefined when it sent none, or none that HTTP defines. */
  get retryAfterMs(): number | undefined {
    return parseRetryAfter(this.headers);
  }
}
/** 500 (and any 5xx without a class of its own): the server failed. */
export class InternalServerError extends APIError {
  /** Always `'InternalServerError'`, whatever a minifier does to class names. */
  override name = 'InternalServerError';
}
/** 503: a dependency of the service is down. Retried automatically. */
export class ServiceUnavailableError extends APIError {
  /** Always `'ServiceUnavailableError'`, whatever a minifier does to class names. */
  override name = 'ServiceUnavailableError';
}

/** The request never got an HTTP answer: DNS, refused or reset connection, TLS. Retried automatically. */
export class ConnectionError extends ReleasesError {
  /** Always `'ConnectionError'`, whatever a minifier does to class names. */
  override name = 'ConnectionError';
}
/** No complete answer (headers and body) within `timeoutMs`. Retried automatically. */
export class TimeoutError extends ConnectionError {
  /** Always `'TimeoutError'`, whatever a minifier does to class names. */
  override name = 'TimeoutError';
}

/**
 * The server redirected somewhere the SDK will not follow: to another origin (your credentials would go
 * there too), in a loop, or (in a browser) to a place the page may not see. Not retried.
 */
export class RedirectError extends ReleasesError {
  /** Always `'RedirectError'`, whatever a minifier does to class names. */
  override name = 'RedirectError';
  /** The redirect status (301, 302, 303, 307, 308), or 0 when a browser hid the redirect from the page. */
  readonly status: number;
  /** Where the server pointed, resolved to an absolute URL; undefined when the browser hid it. */
  readonly location: string | undefined;

  /** Built by the SDK when it stops at a redirect. */
  constructor(message: string, status: number, location: string | undefined) {
    super(message);
    this.status = status;
    this.location = location;
  }
}

/**
 * A response body does not match the API contract (only with the `validateResponses` option, from
 * `@releases/client/validation`). The message names the first mismatched fields.
 */
export class ResponseValidationError extends ReleasesError {
  /** Always `'ResponseValidationError'`, whatever a minifier does to class names. */
  override name = 'ResponseValidationError';
}

type APIErrorClass = new (
  status: number,
  problem: Problem | undefined,
  headers: Headers,
  fallbackMessage?: string,
) => APIError;

/*
 * 408, 417 and 431 have no class: a 408 is retried and then surfaces as an `APIError` with `status` 408 (a
 * `RequestTimeoutError` beside `TimeoutError` would invite confusion), and a 417 or a 431 is a bug in the
 * caller's headers, not a condition to branch on.
 */
const classByKind: Partial<Record<ProblemKind, APIErrorClass>> = {
  'invalid-request': BadRequestError,
  'invalid-cursor': BadRequestError,
  unauthorized: AuthenticationError,
  forbidden: PermissionDeniedError,
  'not-found': NotFoundError,
  conflict: ConflictError,
  'rate-limited': RateLimitError,
  'internal-error': InternalServerError,
  'service-unavailable': ServiceUnavailableError,
};

const classByStatus: Record<number, APIErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/**
 * Where problem types live under the service's URL (the contract's `problemPathPrefix`; a test keeps the two
 * equal). Read here rather than through the contract's `problemKindFromType`, which would carry the whole
 * problem registry, descriptions included, into every browser bundle: the SDK only needs the kinds it maps.
 */
export const problemTypePath = '/problems/';

/** The kind a problem `type` URI names, whatever host issued it: a lower-case slug after `/problems/`. */
function kindOfType(type: unknown): string | undefined {
  if (typeof type !== 'string') return undefined;
  const at = type.lastIndexOf(problemTypePath);
  if (at === -1) return undefined;
  const kind = type.slice(at + problemTypePath.length);
  return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(kind) ? kind : undefined;
}

/** The class for the kind a problem `type` names, when the SDK has one for it. */
function classOfType(type: unknown): APIErrorClass | undefined {
  const kind = kindOfType(type);
  if (kind === undefined) return undefined;
  return Object.prototype.hasOwnProperty.call(classByKind, kind) ? classByKind[kind as ProblemKind] : undefined;
}

function asProblem(body: unknown): Problem | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const candidate = body as Record<string, unknown>;
  return typeof candidate.title === 'string' &&
    typeof candidate.status === 'number' &&
    typeof candidate.detail === 'string'
    ? (candidate as Problem)
    : undefined;
}

/** Builds the error for a non-2xx response: by problem `type` first, then by status. */
export function errorFromResponse(status: number, headers: Headers, body: unknown, bodyText: string): APIError {
  const problem = asProblem(body);
  const ErrorClass =
    classOfType(problem?.type) ?? classByStatus[status] ?? (status >= 500 ? InternalServerError : APIError);
  const fallback = bodyText ? bodyText.replace(/\s+/g, ' ').trim().slice(0, 200) : undefined;
  return new ErrorClass(status, problem, headers, fallback);
}
