/**
 * The registry of problem kinds (RFC 9457). The server builds every error body from it, the SDK picks its
 * error classes from it, and `/problems/{kind}` and the OpenAPI document describe it. Plain data, no zod,
 * so the SDK can import it without pulling a schema library into browser bundles.
 */
export const problemKinds = {
  'invalid-request': {
    status: 400,
    title: 'Invalid request',
    description:
      'The request could not be understood: a query parameter, path parameter or body failed validation, or an unknown parameter was sent. The `errors` member lists each problem with the `parameter` or JSON `pointer` it concerns.',
  },
  'invalid-cursor': {
    status: 400,
    title: 'Invalid cursor',
    description:
      'The `cursor` is not one this service issued, was altered, or belongs to a different set of filters or sort order. Start again from the first page, or send the same filters and sort that produced the cursor.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description:
      'No valid credential was sent. Send an API key in the `x-api-key` header (or, from the web app, a session). Keys that are malformed, unknown, revoked or expired are refused; a credential that is present but invalid is never treated as anonymous.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description:
      "The credential is valid but may not do this (an API key cannot manage keys; signing up may be closed), or a cookie-authenticated request that changes something did not come from this service's own origin.",
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description: 'There is no resource at this URL: the path is unknown, or the identifier names nothing.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The resource exists but does not support this HTTP method. The `Allow` header lists those it does.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    description: 'The request (its headers or body) did not arrive in time. Send it again.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    description:
      'The request conflicts with what exists: the email is already registered, or the account already holds the most active API keys it may (revoke one first).',
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is larger than this service accepts (16 KB of JSON).',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Request bodies must be JSON, sent with `Content-Type: application/json`.',
  },
  'expectation-failed': {
    status: 417,
    title: 'Expectation failed',
    description:
      'The request has an `Expect` header this service cannot meet. The only expectation it meets is `100-continue`.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description:
      'Too many requests in the current window. Wait for the number of seconds in `Retry-After`; the `RateLimit` and `RateLimit-Policy` headers describe the quota.',
  },
  'headers-too-large': {
    status: 431,
    title: 'Request header fields too large',
    description: 'The request line and headers together are larger than this service accepts (16 KB).',
  },
  'internal-error': {
    status: 500,
    title: 'Internal server error',
    description:
      'Something failed on our side. Nothing about it is exposed here; quote the `instance` (request id) when you report it.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description:
      'A dependency (the database or the key manager) is not answering. Retry after the number of seconds in `Retry-After`.',
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ProblemKind = keyof typeof problemKinds;
export type ProblemStatus = (typeof problemKinds)[ProblemKind]['status'];

export const problemKindNames = Object.keys(problemKinds) as ProblemKind[];

export function isProblemKind(value: string): value is ProblemKind {
  return Object.prototype.hasOwnProperty.call(problemKinds, value);
}

/** Media type of every error body. */
export const problemContentType = 'application/problem+json';

/** Path under the public URL where each kind is documented: `{PUBLIC_URL}/problems/<kind>`. */
export const problemPathPrefix = '/problems/';

/** The problem `type` URI for a kind, e.g. `http://localhost:3000/problems/unauthorized`. */
export function problemTypeUri(publicUrl: string, kind: ProblemKind): string {
  return `${publicUrl.replace(/\/+$/, '')}${problemPathPrefix}${kind}`;
}

/** The kind named by a problem `type` URI, whatever host it was issued under, or undefined. */
export function problemKindFromType(type: unknown): ProblemKind | undefined {
  if (typeof type !== 'string') return undefined;
  const at = type.lastIndexOf(problemPathPrefix);
  if (at === -1) return undefined;
  const kind = type.slice(at + problemPathPrefix.length);
  return isProblemKind(kind) ? kind : undefined;
}
