import { describe, expect, it } from 'vitest';
import { problemKindNames, problemPathPrefix } from '@releases/contract/wire';
import { errorFromResponse, problemTypePath } from '../src/errors.js';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
} from '../src/index.js';

const problem = (kind: string, status: number) => ({
  type: `https://api.example.com/problems/${kind}`,
  title: kind,
  status,
  detail: `a ${kind}`,
});
const headers = (extra: Record<string, string> = {}) => new Headers({ 'x-request-id': 'req-1', ...extra });

describe('choosing the error class', () => {
  it.each([
    ['invalid-request', 400, BadRequestError],
    ['invalid-cursor', 400, BadRequestError],
    ['unauthorized', 401, AuthenticationError],
    ['forbidden', 403, PermissionDeniedError],
    ['not-found', 404, NotFoundError],
    ['conflict', 409, ConflictError],
    ['rate-limited', 429, RateLimitError],
    ['internal-error', 500, InternalServerError],
    ['service-unavailable', 503, ServiceUnavailableError],
  ])('%s → its class', (kind, status, expected) => {
    const error = errorFromResponse(status, headers(), problem(kind, status), '');
    expect(error).toBeInstanceOf(expected);
    expect(error.message).toBe(`${status} ${kind}: a ${kind} (request id req-1)`);
    expect(error.requestId).toBe('req-1');
  });

  it('reads problem types where the contract puts them, and knows only the contract kinds', () => {
    expect(problemTypePath).toBe(problemPathPrefix);
    // An unknown kind (or a look-alike from Object.prototype) falls back to the status.
    expect(errorFromResponse(400, headers(), problem('constructor', 400), '')).toBeInstanceOf(BadRequestError);
    expect(errorFromResponse(418, headers(), problem('toString', 418), '').constructor).toBe(APIError);
    expect(problemKindNames).toContain('conflict');
  });

  it('goes by the problem type first, then by the status', () => {
    // A proxy rewrote the status, the body still says what happened.
    expect(errorFromResponse(503, headers(), problem('rate-limited', 429), '')).toBeInstanceOf(RateLimitError);
    expect(errorFromResponse(404, headers(), { message: 'nope' }, '{"message":"nope"}')).toBeInstanceOf(NotFoundError);
    expect(errorFromResponse(504, headers(), undefined, 'Gateway Timeout')).toBeInstanceOf(InternalServerError);
    const other = errorFromResponse(405, headers(), problem('method-not-allowed', 405), '');
    expect(other.constructor).toBe(APIError);
    expect(other.status).toBe(405);
    expect(errorFromResponse(409, headers(), undefined, '')).toBeInstanceOf(ConflictError);
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(
      (errorFromResponse(429, headers({ 'retry-after': '7' }), problem('rate-limited', 429), '') as RateLimitError)
        .retryAfterMs,
    ).toBe(7000);
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    const fromDate = (
      errorFromResponse(429, headers({ 'retry-after': inAMinute }), problem('rate-limited', 429), '') as RateLimitError
    ).retryAfterMs!;
    expect(fromDate).toBeGreaterThan(50_000);
    expect(fromDate).toBeLessThanOrEqual(60_000);
  });
});
