import { ReleasesError } from './errors.js';
import type { HeaderValues } from './headers.js';
import type { LogLevel, Logger } from './logger.js';
import type { ResponseValidator } from './types.js';

/**
 * `RequestInit` fields the SDK passes through to `fetch` (credentials, mode, cache, keepalive, priority...).
 * The SDK sets `method`, `headers`, `body` and `signal` itself, and always `redirect: 'manual'`: it follows
 * same-origin redirects on its own and refuses the others, so credentials never reach another origin.
 */
export type FetchOptions = Omit<RequestInit, 'body' | 'headers' | 'method' | 'redirect' | 'signal'>;

/** Options of `new ReleasesClient(options)`. Every field may be left out, or `undefined`, for its default. */
export interface ClientOptions {
  /**
   * API key (`rls_...`), sent as `x-api-key` to the routes that take one. A function is called before each
   * request (for keys kept in a secret manager). The SDK does not judge the key's format (the server does);
   * it only refuses a value that cannot be sent as a header: empty, with control or non-ASCII characters.
   * @default process.env.RELEASES_API_KEY, trimmed (where `process.env` exists and may be read)
   * @example new ReleasesClient({ apiKey: 'rls_...' })
   */
  apiKey?: string | (() => string | Promise<string>) | undefined;
  /**
   * A session token (`session.token` from `auth.login()`), sent as `Authorization: Bearer <token>` to the
   * routes that take a session: accounts, keys, and the release routes when there is no API key. In a
   * browser on the service's own origin, use `fetchOptions: { credentials: 'include' }` and the session
   * cookie instead.
   * @default undefined
   * @example new ReleasesClient({ sessionToken: session.token })
   */
  sessionToken?: string | undefined;
  /**
   * Where the API lives: an http(s) URL, optionally with a path prefix, without credentials, query or fragment.
   * @default process.env.RELEASES_BASE_URL (trimmed), else the page's origin in a browser, else 'http://localhost:3000'
   * @example new ReleasesClient({ baseUrl: 'https://releases.example.com' })
   */
  baseUrl?: string | undefined;
  /**
   * Time allowed for each attempt, headers and body included, in whole milliseconds (1 to 2^31 - 1).
   * @default 30000
   * @example new ReleasesClient({ timeoutMs: 5_000 })
   */
  timeoutMs?: number | undefined;
  /**
   * Retries of idempotent requests (GET, DELETE) after connection errors, timeouts, 408, 429, 502, 503
   * and 504, and of GET requests after a 500; a whole number >= 0. POST requests are never retried.
   * @default 2
   * @example new ReleasesClient({ maxRetries: 0 }) // fail fast
   */
  maxRetries?: number | undefined;
  /**
   * The `fetch` to use: for proxies, instrumentation, tests or older runtimes. It is called as a plain
   * function, so an unbound `window.fetch` works.
   * @default globalThis.fetch, looked up at each request (so a mock installed later is used)
   * @example new ReleasesClient({ fetch: myInstrumentedFetch })
   */
  fetch?: typeof fetch | undefined;
  /**
   * Extra `fetch` options for every request.
   * @default {}
   * @example new ReleasesClient({ fetchOptions: { credentials: 'include' } }) // browser session cookie
   */
  fetchOptions?: FetchOptions | undefined;
  /**
   * Headers sent with every request. Names are case-insensitive: a later value replaces an earlier one
   * (per-call headers replace these, which replace the SDK's own); `null` removes a header.
   * @default {}
   * @example new ReleasesClient({ headers: { 'x-app': 'my-app/1.0' } })
   */
  headers?: HeaderValues | undefined;
  /**
   * Where the SDK logs (retries at `info`, requests and responses at `debug`). Credentials are never logged
   * in full.
   * @default console
   * @example new ReleasesClient({ logger: pino(), logLevel: 'debug' })
   */
  logger?: Logger | undefined;
  /**
   * How much to log: `'off'`, `'error'`, `'warn'`, `'info'` (retries) or `'debug'` (every request, and a
   * line per response with its status, duration and request id).
   * @default process.env.RELEASES_LOG (any case, where `process.env` exists), else 'warn'
   * @example new ReleasesClient({ logLevel: 'debug' }) // or RELEASES_LOG=debug node app.js
   */
  logLevel?: LogLevel | undefined;
  /**
   * Checks every response body against the API contract and throws `ResponseValidationError` when it does
   * not match. Off by default (no schema library in your bundle); pass the validator from
   * `@releases/client/validation` to turn it on.
   * @default undefined
   * @example import { validateResponses } from '@releases/client/validation';
   * new ReleasesClient({ validateResponses })
   */
  validateResponses?: ResponseValidator | undefined;
  /**
   * Backoff for retries without a usable `Retry-After`: full jitter over `baseDelayMs * 2^attempt`, capped
   * at `maxDelayMs`. Both in milliseconds, 0 to 2^31 - 1.
   * @default { baseDelayMs: 500, maxDelayMs: 8000 }
   * @example new ReleasesClient({ retryBackoff: { baseDelayMs: 100 } }) // snappier retries for interactive use
   */
  retryBackoff?:
    | {
        /** Ceiling of the first wait; each retry doubles it. @default 500 */
        baseDelayMs?: number | undefined;
        /** The longest wait between two attempts. @default 8000 */
        maxDelayMs?: number | undefined;
      }
    | undefined;
}

/** Options of a single call, its last argument; they override the client's. */
export interface RequestOptions {
  /** Cancels the call, including a wait between retries; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Time allowed for each attempt of this call, in whole milliseconds. @default the client's `timeoutMs` */
  timeoutMs?: number | undefined;
  /** Retries of this call (idempotent requests only). @default the client's `maxRetries` */
  maxRetries?: number | undefined;
  /** Headers for this call; they replace the client's of the same name, and `null` removes one. */
  headers?: HeaderValues | undefined;
}

/** A request to any endpoint, for `client.request()`. */
export interface RawRequest extends RequestOptions {
  /** The HTTP method. Only GET, HEAD, PUT and DELETE are retried. */
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the base URL, e.g. `/api/v1/facets`. */
  path: string;
  /** Query parameters; arrays are sent comma-separated, `undefined` values are left out. */
  query?: Record<string, string | number | readonly string[] | undefined> | undefined;
  /** A JSON body (sent with `content-type: application/json`). */
  body?: unknown;
}

/** The largest delay `setTimeout` honours; a longer one fires at once. */
const maxTimerMs = 2 ** 31 - 1;
/** The log levels, for the option and for `RELEASES_LOG`. */
export const logLevels: ReadonlySet<string> = new Set(['off', 'error', 'warn', 'info', 'debug']);

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** A whole number in [min, max], or a `ReleasesError` that names the option and what it must be. */
function wholeNumberOption(name: string, value: unknown, min: number, max: number, unit = ''): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
  throw new ReleasesError(`${name} must be a whole number${unit} ${range}; got ${shown(value)}.`);
}

/** `timeoutMs`, checked: whole milliseconds that `setTimeout` can wait. */
export function timeoutOption(value: unknown): number {
  return wholeNumberOption('timeoutMs', value, 1, maxTimerMs, ' of milliseconds');
}

/** `maxRetries`, checked: NaN or Infinity would retry forever. */
export function maxRetriesOption(value: unknown): number {
  return wholeNumberOption('maxRetries', value, 0, Number.MAX_SAFE_INTEGER);
}

/** A backoff delay, checked. */
export function delayOption(name: string, value: unknown): number {
  return wholeNumberOption(name, value, 0, maxTimerMs, ' of milliseconds');
}

/** `logLevel`, checked. */
export function logLevelOption(value: unknown): LogLevel {
  if (typeof value === 'string' && logLevels.has(value)) return value as LogLevel;
  throw new ReleasesError(`logLevel must be one of ${[...logLevels].join(', ')}; got ${shown(value)}.`);
}

/**
 * `baseUrl`, checked and normalised to origin + path without a trailing slash. A query or fragment would
 * end up in the middle of every request URL; credentials in it would be sent to proxies and logged, and
 * browsers refuse such URLs in fetch.
 */
export function baseUrlOption(value: unknown): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ReleasesError(`baseUrl must be an http(s) URL, e.g. https://releases.example.com; got ${shown(value)}.`);
  }
  if (url.username || url.password) {
    throw new ReleasesError('baseUrl must not contain credentials (user:password@): pass apiKey or sessionToken.');
  }
  if (url.search || url.hash)
    throw new ReleasesError(`baseUrl must not have a query or fragment; got ${shown(value)}.`);
  return url;
}
