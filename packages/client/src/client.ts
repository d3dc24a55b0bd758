import { apiPaths, checkApiKeyFormat, headerNames, releaseFilterParameters } from '@releases/contract/wire';
import { APIPromise, type WithResponse } from './api-promise.js';
import { APIError, ConnectionError, ReleasesError, TimeoutError, errorFromResponse, retryAfterMs } from './errors.js';
import { levelLogger, redactHeaders, type LogLevel, type Logger } from './logger.js';
import { ReleasePage, ReleasePagePromise } from './pagination.js';
import type {
  Facets,
  Release,
  ReleaseListParams,
  ReleaseListResponse,
  ResponseValidator,
  ValidatedOperation,
} from './types.js';

export interface ClientOptions {
  /**
   * API key (`rls_...`), sent as `x-api-key`. A function is called before each request (for keys kept in a
   * secret manager).
   * @default process.env.RELEASES_API_KEY (where `process.env` exists)
   * @example new ReleasesClient({ apiKey: 'rls_...' })
   */
  apiKey?: string | (() => string | Promise<string>);
  /**
   * A session token, sent as `Authorization: Bearer <token>` (server-side rendering). In a browser on the
   * service's own origin, use `fetchOptions: { credentials: 'include' }` and the session cookie instead.
   * @example new ReleasesClient({ sessionToken: req.cookies.session })
   */
  sessionToken?: string;
  /**
   * Where the API lives.
   * @default process.env.RELEASES_BASE_URL, else the page's origin in a browser, else 'http://localhost:3000'
   * @example new ReleasesClient({ baseUrl: 'https://releases.example.com' })
   */
  baseUrl?: string;
  /**
   * Time allowed for each attempt, headers and body included, in milliseconds.
   * @default 30000
   * @example new ReleasesClient({ timeoutMs: 5_000 })
   */
  timeoutMs?: number;
  /**
   * Retries of idempotent requests after connection errors, timeouts, 408, 429, 502, 503 and 504.
   * @default 2
   * @example new ReleasesClient({ maxRetries: 0 }) // fail fast
   */
  maxRetries?: number;
  /**
   * The `fetch` to use: for proxies, tests or older runtimes.
   * @default globalThis.fetch
   * @example new ReleasesClient({ fetch: myInstrumentedFetch })
   */
  fetch?: typeof fetch;
  /**
   * Extra `RequestInit` for every request.
   * @default {}
   * @example new ReleasesClient({ fetchOptions: { credentials: 'include' } }) // browser session cookie
   */
  fetchOptions?: RequestInit;
  /**
   * Headers sent with every request.
   * @default {}
   * @example new ReleasesClient({ headers: { 'user-agent': 'my-app/1.0' } })
   */
  headers?: Record<string, string>;
  /**
   * Where the SDK logs (retries at `info`, requests at `debug`). Credentials are never logged in full.
   * @default console
   * @example new ReleasesClient({ logger: pino(), logLevel: 'debug' })
   */
  logger?: Logger;
  /**
   * How much to log.
   * @default 'warn'
   * @example new ReleasesClient({ logLevel: 'debug' })
   */
  logLevel?: LogLevel;
  /**
   * Checks every response body against the API contract and throws when it does not match. Off by default
   * (no schema library in your bundle); pass the validator from `@releases/client/validation` to turn it on.
   * @default undefined
   * @example import { validateResponses } from '@releases/client/validation';
   * new ReleasesClient({ validateResponses })
   */
  validateResponses?: ResponseValidator;
  /**
   * Backoff tuning for retries without `Retry-After`: full jitter over `baseDelayMs * 2^attempt`, capped.
   * @default { baseDelayMs: 500, maxDelayMs: 8000 }
   * @example new ReleasesClient({ retryBackoff: { baseDelayMs: 100 } }) // snappier retries for interactive use
   */
  retryBackoff?: { baseDelayMs?: number; maxDelayMs?: number };
}

/** Options of a single call; they override the client's. */
export interface RequestOptions {
  /** Cancels the call, including a wait between retries; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
}

export interface RawRequest extends RequestOptions {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the base URL, e.g. `/api/v1/facets`. */
  path: string;
  query?: Record<string, string | number | readonly string[] | undefined>;
  body?: unknown;
}

/** `Retry-After` beyond this is not waited for: the error is thrown at once. */
const maxRetryAfterMs = 60_000;
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const retryableStatuses = new Set([408, 429, 502, 503, 504]);

function environment(name: string): string | undefined {
  // Read where the platform has `process.env`, at call time: never at import, never a bundler polyfill.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === '' ? undefined : value;
}

function defaultBaseUrl(): string {
  const fromEnvironment = environment('RELEASES_BASE_URL');
  if (fromEnvironment) return fromEnvironment;
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  return origin && origin !== 'null' ? origin : 'http://localhost:3000';
}

function assertApiKey(key: string): void {
  if (key.trim() === '') throw new ReleasesError('The API key is empty. Pass apiKey or set RELEASES_API_KEY.');
  const problem = checkApiKeyFormat(key);
  if (problem === 'malformed') {
    throw new ReleasesError(
      'The API key is malformed: keys are 42 characters, start with rls_ and contain only letters and digits.',
    );
  }
  if (problem === 'bad-checksum')
    throw new ReleasesError('The API key does not pass its checksum: it was mistyped or cut short.');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as unknown);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as unknown);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function encodeQuery(query: RawRequest['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    params.set(name, typeof value === 'string' || typeof value === 'number' ? String(value) : value.join(','));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Turns list parameters into the wire query, refusing what the server would silently read otherwise. */
function listQuery(params: ReleaseListParams): NonNullable<RawRequest['query']> {
  for (const name of releaseFilterParameters) {
    const values = params[name];
    if (values === undefined) continue;
    if (!Array.isArray(values)) throw new ReleasesError(`${name} must be an array of strings, e.g. ['Hatsune Miku'].`);
    for (const value of values) {
      if (typeof value !== 'string') throw new ReleasesError(`${name} must contain only strings.`);
      if (value.includes(',')) {
        throw new ReleasesError(
          `${name} value ${JSON.stringify(value)} contains a comma, which the API reads as two values; no such value can match.`,
        );
      }
    }
  }
  return {
    vocaloid_banks: params.vocaloid_banks,
    genres: params.genres,
    languages: params.languages,
    limit: params.limit,
    sort: params.sort,
    cursor: params.cursor,
  };
}

/**
 * The Releases API client.
 *
 * @example
 * const client = new ReleasesClient({ apiKey: process.env.RELEASES_API_KEY });
 * for await (const release of client.releases.list({ vocaloid_banks: ['Hatsune Miku'] })) console.log(release.title);
 */
export class ReleasesClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  private readonly apiKey: ClientOptions['apiKey'];
  private readonly sessionToken: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly fetchOptions: RequestInit;
  private readonly headers: Record<string, string>;
  private readonly log: Logger;
  private readonly validator: ResponseValidator | undefined;
  private readonly backoff: { baseDelayMs: number; maxDelayMs: number };

  constructor(options: ClientOptions = {}) {
    this.apiKey = options.apiKey ?? environment('RELEASES_API_KEY');
    if (typeof this.apiKey === 'string') assertApiKey(this.apiKey);
    this.sessionToken = options.sessionToken;
    this.baseUrl = (options.baseUrl ?? defaultBaseUrl()).replace(/\/+$/, '');
    if (!/^https?:\/\//.test(this.baseUrl))
      throw new ReleasesError(`baseUrl must be an http(s) URL; got ${JSON.stringify(this.baseUrl)}.`);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new ReleasesError('No fetch available: pass one as the fetch option.');
    this.fetchImpl = fetchImpl;
    this.fetchOptions = options.fetchOptions ?? {};
    this.headers = options.headers ?? {};
    this.log = levelLogger(options.logger ?? console, options.logLevel ?? 'warn');
    this.validator = options.validateResponses;
    this.backoff = {
      baseDelayMs: options.retryBackoff?.baseDelayMs ?? 500,
      maxDelayMs: options.retryBackoff?.maxDelayMs ?? 8_000,
    };
  }

  readonly health = {
    /** Checks the API key and the service: resolves `"OK"`, or throws `AuthenticationError` / `ServiceUnavailableError`. */
    check: (options?: RequestOptions): APIPromise<'OK'> =>
      new APIPromise(this.call<'OK'>({ method: 'GET', path: apiPaths.health, ...options }, 'health.check')),
  };

  readonly releases = {
    /** A page of releases; iterate the result with `for await` to walk every page. */
    list: (params: ReleaseListParams = {}, options?: RequestOptions): ReleasePagePromise => {
      const fetchPage = (pageParams: ReleaseListParams): Promise<WithResponse<ReleasePage>> =>
        this.call<ReleaseListResponse>(
          { method: 'GET', path: apiPaths.releaseList, query: listQuery(pageParams), ...options },
          'releases.list',
        ).then((result) => ({
          ...result,
          data: new ReleasePage(
            result.data.data.releases,
            result.data.data.pagination,
            result.data.data.generated_at,
            pageParams,
            fetchPage,
          ),
        }));
      let first: Promise<WithResponse<ReleasePage>>;
      try {
        first = fetchPage(params);
      } catch (error) {
        first = Promise.reject(error);
      }
      return new ReleasePagePromise(first);
    },

    /** One release by id; `NotFoundError` when there is none. */
    get: (id: string, options?: RequestOptions): APIPromise<Release> =>
      new APIPromise(
        this.call<{ data: Release }>(
          { method: 'GET', path: apiPaths.release.replace(':id', encodeURIComponent(id)), ...options },
          'releases.get',
        ).then((result) => ({ ...result, data: result.data.data })),
      ),
  };

  readonly facets = {
    /** Voice banks, genres and languages in the catalogue with their release counts. */
    list: (options?: RequestOptions): APIPromise<Facets> =>
      new APIPromise(
        this.call<{ data: Facets }>({ method: 'GET', path: apiPaths.facets, ...options }, 'facets.list').then(
          (result) => ({
            ...result,
            data: result.data.data,
          }),
        ),
      ),
  };

  /**
   * Any endpoint, with this client's authentication, retries, timeouts and errors. `T` is the parsed JSON body.
   * @example const doc = await client.request<Record<string, unknown>>({ method: 'GET', path: '/api/v1/openapi.json' });
   */
  request<T = unknown>(request: RawRequest): APIPromise<T> {
    return new APIPromise(this.call<T>(request, undefined));
  }

  private async authHeaders(): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    if (this.apiKey !== undefined) {
      const key = typeof this.apiKey === 'function' ? await this.apiKey() : this.apiKey;
      assertApiKey(key);
      headers[headerNames.apiKey] = key;
    }
    if (this.sessionToken) headers.authorization = `Bearer ${this.sessionToken}`;
    return headers;
  }

  private async call<T>(request: RawRequest, operation: ValidatedOperation | undefined): Promise<WithResponse<T>> {
    const url = `${this.baseUrl}${request.path}${encodeQuery(request.query)}`;
    const maxRetries = idempotentMethods.has(request.method) ? (request.maxRetries ?? this.maxRetries) : 0;
    const headers = new Headers({
      accept: 'application/json',
      ...this.headers,
      ...(await this.authHeaders()),
      ...request.headers,
    });
    if (request.body !== undefined) headers.set('content-type', 'application/json');
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);

    for (let attempt = 0; ; attempt++) {
      let failure: ReleasesError;
      try {
        const result = await this.attempt<T>(url, request, headers, body);
        if (operation && this.validator) this.validator(operation, result.data);
        return result;
      } catch (error) {
        if (!(error instanceof ReleasesError)) throw error;
        failure = error;
      }
      const delay = this.retryDelay(failure, attempt, maxRetries);
      if (delay === undefined) throw failure;
      this.log.info(
        `releases: retrying ${request.method} ${request.path} in ${Math.round(delay)} ms (attempt ${attempt + 2} of ${maxRetries + 1}): ${failure.message}`,
      );
      await sleep(delay, request.signal);
    }
  }

  /** How long to wait before retrying, or undefined to give up. */
  private retryDelay(failure: ReleasesError, attempt: number, maxRetries: number): number | undefined {
    const retryable =
      failure instanceof ConnectionError || (failure instanceof APIError && retryableStatuses.has(failure.status));
    if (!retryable || attempt >= maxRetries) return undefined;
    if (failure instanceof APIError) {
      const requested = retryAfterMs(failure.headers);
      // A server asking for more than a minute means "not now": surface it instead of hanging the caller.
      if (requested !== undefined && requested > maxRetryAfterMs) return undefined;
      if (requested !== undefined) return requested;
    }
    const ceiling = Math.min(this.backoff.maxDelayMs, this.backoff.baseDelayMs * 2 ** attempt);
    return Math.random() * ceiling;
  }

  /** One request and its body, under its own timeout. */
  private async attempt<T>(
    url: string,
    request: RawRequest,
    headers: Headers,
    body: string | undefined,
  ): Promise<WithResponse<T>> {
    const callerSignal = request.signal;
    if (callerSignal?.aborted) throw callerSignal.reason;
    const controller = new AbortController();
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(callerSignal!.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    this.log.debug(`releases: ${request.method} ${url}`, redactHeaders(headers));
    try {
      const response = await this.fetchImpl(url, {
        ...this.fetchOptions,
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: controller.signal,
      });
      // Reading the body is part of the attempt: the timer still runs.
      const text = await response.text();
      let parsed: unknown = undefined;
      if (text !== '') {
        try {
          parsed = JSON.parse(text);
        } catch {
          if (response.ok)
            throw new APIError(response.status, undefined, response.headers, 'the response body is not JSON');
        }
      }
      if (!response.ok) throw errorFromResponse(response.status, response.headers, parsed, text);
      return { data: parsed as T, response, requestId: response.headers.get(headerNames.requestId) ?? undefined };
    } catch (error) {
      if (error instanceof ReleasesError) throw error;
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timedOut)
        throw new TimeoutError(`${request.method} ${request.path} timed out after ${timeoutMs} ms`, { cause: error });
      throw new ConnectionError(
        `${request.method} ${request.path} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }
}
