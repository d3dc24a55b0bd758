import { problemKindFromType, type ProblemKind } from '@releases/contract/wire';
import type { Problem, ProblemFieldError } from './types.js';

/** Every error this SDK throws is a `ReleasesError` (aborts reject with the signal's own reason). */
export class ReleasesError extends Error {
  override name = 'ReleasesError';
}

/** The API answered with a non-2xx status. */
export class APIError extends ReleasesError {
  override name = 'APIError';
  /** HTTP status. */
  readonly status: number;
  /** The RFC 9457 problem body, when the response carried one. */
  readonly problem: Problem | undefined;
  /** The `x-request-id` of the failed request: quote it when you report a problem. */
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(status: number, problem: Problem | undefined, headers: Headers, fallbackMessage?: string) {
    const requestId = headers.get('x-request-id') ?? undefined;
    const what = problem ? `${problem.title}: ${problem.detail}` : (fallbackMessage ?? 'request failed');
    super(`${status} ${what}${requestId ? ` (request id ${requestId})` : ''}`);
    this.status = status;
    this.problem = problem;
    this.requestId = requestId;
    this.headers = headers;
  }

  /** Validation errors (`errors` of the problem), one per parameter or field. */
  get errors(): ProblemFieldError[] {
    return this.problem?.errors ?? [];
  }
}

/** 400: a parameter was invalid (`invalid-request`) or the cursor was (`invalid-cursor`). */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/** 401: the API key or session is missing, malformed, unknown, revoked or expired. */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 403: the credential may not do this. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
/** 404: no such resource. */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
/** 429: too many requests. `retryAfterMs` says how long the server asked to wait. */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  get retryAfterMs(): number | undefined {
    return retryAfterMs(this.headers);
  }
}
/** 500 (and any 5xx without a class of its own): the server failed. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}
/** 503: a dependency of the service is down; retried automatically. */
export class ServiceUnavailableError extends APIError {
  override name = 'ServiceUnavailableError';
}

/** The request never got an HTTP answer: DNS, refused or reset connection, TLS. Retried automatically. */
export class ConnectionError extends ReleasesError {
  override name = 'ConnectionError';
}
/** No complete answer (headers and body) within `timeoutMs`. Retried automatically. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

type APIErrorClass = new (
  status: number,
  problem: Problem | undefined,
  headers: Headers,
  fallbackMessage?: string,
) => APIError;

const classByKind: Partial<Record<ProblemKind, APIErrorClass>> = {
  'invalid-request': BadRequestError,
  'invalid-cursor': BadRequestError,
  unauthorized: AuthenticationError,
  forbidden: PermissionDeniedError,
  'not-found': NotFoundError,
  'rate-limited': RateLimitError,
  'internal-error': InternalServerError,
  'service-unavailable': ServiceUnavailableError,
};

const classByStatus: Record<number, APIErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

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
  const kind = problemKindFromType(problem?.type);
  const ErrorClass =
    (kind && classByKind[kind]) ?? classByStatus[status] ?? (status >= 500 ? InternalServerError : APIError);
  const fallback = bodyText ? bodyText.replace(/\s+/g, ' ').trim().slice(0, 200) : undefined;
  return new ErrorClass(status, problem, headers, fallback);
}

/** `Retry-After` in milliseconds: seconds or an HTTP date. Undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
