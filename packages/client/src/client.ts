import { headerNames } from '@releases/contract/wire';
import { APIPromise, keepBody, type WithResponse } from './api-promise.js';
import {
  APIError,
  ConnectionError,
  RedirectError,
  ReleasesError,
  ResponseValidationError,
  TimeoutError,
  errorFromResponse,
} from './errors.js';
import { assertSendableCredential, mergeHeaders, type HeaderValues } from './headers.js';
import { levelLogger, redactHeaders, type LogLevel, type Logger } from './logger.js';
import { isNetworkError } from './network-error.js';
import type { OperationAuth } from './operations.js';
import {
  baseUrlOption,
  delayOption,
  logLevelOption,
  logLevels,
  maxRetriesOption,
  timeoutOption,
  type ClientOptions,
  type FetchOptions,
  type RawRequest,
} from './options.js';
import {
  AuthResource,
  FacetsResource,
  HealthResource,
  KeysResource,
  ReleasesResource,
  type ApiRequest,
} from './resources.js';
import {
  backoffDelayMs,
  idempotentMethods,
  maxRetryAfterMs,
  parseRetryAfter,
  retryableStatuses,
  retryAfterDelayMs,
  type Backoff,
} from './retry.js';
import type { ResponseValidator } from './types.js';
import { identificationHeaders } from './version.js';

/** Statuses whose `Location` the SDK follows (within the origin). */
const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Redirects followed within one attempt before giving up (fetch allows 20; an API needs one or two). */
const maxRedirects = 5;

/**
 * A variable of `process.env` where the platform has one, read at call time (never at import, never a
 * bundler polyfill) and trimmed: a key pasted with a space, or read from a file with its newline, is the
 * key. Whitespace alone is the same as unset.
 */
function environment(name: string): string | undefined {
  let value: unknown;
  try {
    value = (globalThis as { process?: { env?: Record<string, unknown> } }).process?.env?.[name];
  } catch {
    // Deno without --allow-env throws on reading a variable: no permission means no value, not a crash.
    return undefined;
  }
  const trimmed = typeof value === 'string' ? value.trim() : '';
  return trimmed === '' ? undefined : trimmed;
}

/** `RELEASES_LOG`, when it names a level (any case); a warning otherwise, and the default applies. */
function environmentLogLevel(logger: Logger): LogLevel | undefined {
  const value = environment('RELEASES_LOG');
  if (value === undefined) return undefined;
  const level = value.toLowerCase();
  if (logLevels.has(level)) return level as LogLevel;
  logger.warn(
    `releases: RELEASES_LOG is ${JSON.stringify(value)}, not one of ${[...logLevels].join(', ')}; logging at warn.`,
  );
  return undefined;
}

function defaultBaseUrl(): string {
  const fromEnvironment = environment('RELEASES_BASE_URL');
  if (fromEnvironment) return fromEnvironment;
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  return origin && origin !== 'null' ? origin : 'http://localhost:3000';
}

/**
 * The default `fetch`: the global one, looked up at each call (so a polyfill or a test mock installed later
 * is used) and called as a plain function. Browsers and Workers throw "Illegal invocation" when their
 * `fetch` is called as a method of anything but the global object, such as this client.
 */
const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

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

/**
 * A rejection of `fetch`, or of reading a body: kept apart from the SDK's own errors and from a logger's,
 * so that only what the transport threw is judged as a network failure.
 */
class TransportFailure extends Error {
  constructor(readonly error: unknown) {
    super('fetch or a body read failed');
  }
}

async function transport<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw new TransportFailure(error);
  }
}

/** One attempt's request, as it goes to `fetch` (a redirect may change method and body). */
interface Outgoing {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
}

/**
 * The Releases API client: `health`, `releases`, `facets`, `auth` and `keys`, each call typed from the API
 * contract, with retries, timeouts and typed errors.
 *
 * @example
 * const client = new ReleasesClient({ apiKey: process.env.RELEASES_API_KEY });
 * for await (const release of client.releases.list({ vocaloid_banks: ['Hatsune Miku'] })) console.log(release.title);
 */
export class ReleasesClient {
  /** The API's base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** Time allowed for each attempt, in milliseconds. */
  readonly timeoutMs: number;
  /** Retries of idempotent requests. */
  readonly maxRetries: number;
  /** Checks the API key and the service. */
  readonly health: HealthResource;
  /** The catalogue: list (with pagination) and get. */
  readonly releases: ReleasesResource;
  /** The filter values in the catalogue, with counts. */
  readonly facets: FacetsResource;
  /** Sign up, log in, log out and the current session. */
  readonly auth: AuthResource;
  /** The signed-in account's API keys: list, create, revoke. */
  readonly keys: KeysResource;

  readonly #options: ClientOptions;
  readonly #origin: string;
  readonly #apiKey: ClientOptions['apiKey'];
  readonly #sessionToken: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #fetchOptions: FetchOptions;
  readonly #sdkHeaders: HeaderValues;
  readonly #headers: HeaderValues;
  readonly #log: Logger;
  readonly #validator: ResponseValidator | undefined;
  readonly #backoff: Backoff;

  /**
   * Checks every option at once: a bad one throws a `ReleasesError` naming it, before any request.
   * @example new ReleasesClient({ apiKey: 'rls_...', baseUrl: 'https://releases.example.com' })
   */
  constructor(options: ClientOptions = {}) {
    this.#options = options;
    this.#apiKey = options.apiKey ?? environment('RELEASES_API_KEY');
    if (typeof this.#apiKey !== 'function' && this.#apiKey !== undefined) {
      assertSendableCredential('apiKey', this.#apiKey);
    }
    if (options.sessionToken !== undefined) assertSendableCredential('sessionToken', options.sessionToken);
    this.#sessionToken = options.sessionToken;
    const url = baseUrlOption(options.baseUrl ?? defaultBaseUrl());
    this.#origin = url.origin;
    this.baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    this.timeoutMs = options.timeoutMs === undefined ? 30_000 : timeoutOption(options.timeoutMs);
    this.maxRetries = options.maxRetries === undefined ? 2 : maxRetriesOption(options.maxRetries);
    this.#backoff = {
      baseDelayMs: delayOption('retryBackoff.baseDelayMs', options.retryBackoff?.baseDelayMs ?? 500),
      maxDelayMs: delayOption('retryBackoff.maxDelayMs', options.retryBackoff?.maxDelayMs ?? 8_000),
    };
    if (options.fetch !== undefined && typeof options.fetch !== 'function') {
      throw new ReleasesError('fetch must be a function with the signature of the global fetch.');
    }
    if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
      throw new ReleasesError('No fetch available in this runtime: pass one as the fetch option.');
    }
    this.#fetch = options.fetch ?? globalFetch;
    this.#fetchOptions = options.fetchOptions ?? {};
    // Computed once: the runtime does not change under a client.
    this.#sdkHeaders = { accept: 'application/json', ...identificationHeaders() };
    this.#headers = options.headers ?? {};
    mergeHeaders(this.#headers); // refuses a header fetch could not send, now rather than at the first call
    const logger = options.logger ?? console;
    this.#log = levelLogger(logger, logLevelOption(options.logLevel ?? environmentLogLevel(logger) ?? 'warn'));
    this.#validator = options.validateResponses;

    const request = <T>(apiRequest: ApiRequest) => this.#send<T>(apiRequest);
    this.health = new HealthResource(request);
    this.releases = new ReleasesResource(request);
    this.facets = new FacetsResource(request);
    this.auth = new AuthResource(request);
    this.keys = new KeysResource(request);
  }

  /**
   * A client with the same options that acts as a signed-in user: it sends `sessionToken` as
   * `Authorization: Bearer` to the routes that take a session. This client is unchanged.
   * @example
   * const { session } = await client.auth.login({ email, password });
   * const me = client.withSession(session.token);
   * await me.keys.list();
   */
  withSession(sessionToken: string): ReleasesClient {
    return this.withOptions({ sessionToken });
  }

  /**
   * A client with this one's options and `options` over them, checked as the constructor checks them; this
   * client is unchanged. `headers` are merged by name (whatever the case; `null` removes one), as are
   * `fetchOptions` and `retryBackoff`; every other option is replaced.
   * @example
   * const failFast = client.withOptions({ maxRetries: 0, timeoutMs: 2_000 });
   * await failFast.health.check();
   */
  withOptions(options: ClientOptions): ReleasesClient {
    const base = this.#options;
    return new ReleasesClient({
      ...base,
      ...options,
      // Spread in order, so mergeHeaders sees this client's headers first and the new ones after them.
      headers: { ...base.headers, ...options.headers },
      fetchOptions: { ...base.fetchOptions, ...options.fetchOptions },
      retryBackoff: { ...base.retryBackoff, ...options.retryBackoff },
    });
  }

  /**
   * Any endpoint, with this client's credentials (the API key if there is one, else the session token),
   * retries, timeouts and errors. `T` is the parsed JSON body.
   * @example const doc = await client.request<Record<string, unknown>>({ method: 'GET', path: '/api/v1/openapi.json' });
   */
  request<T = unknown>(request: RawRequest): APIPromise<T> {
    const { method, path, query, body, ...options } = request;
    return new APIPromise(this.#send<T>({ method, path, query, body, options, auth: 'optional' }));
  }

  /** The credential headers an operation takes, and only those. */
  async #credentials(auth: OperationAuth): Promise<HeaderValues> {
    if (auth === 'none') return {};
    if ((auth === 'api-key' || auth === 'optional') && this.#apiKey !== undefined) {
      const key = typeof this.#apiKey === 'function' ? await this.#apiKey() : this.#apiKey;
      assertSendableCredential('apiKey', key);
      return { [headerNames.apiKey]: key };
    }
    if ((auth === 'session' || auth === 'optional') && this.#sessionToken !== undefined) {
      return { [headerNames.authorization]: `Bearer ${this.#sessionToken}` };
    }
    return {};
  }

  async #send<T>(request: ApiRequest): Promise<WithResponse<T>> {
    const options = request.options ?? {};
    const timeoutMs = options.timeoutMs === undefined ? this.timeoutMs : timeoutOption(options.timeoutMs);
    const callRetries = options.maxRetries === undefined ? this.maxRetries : maxRetriesOption(options.maxRetries);
    const maxRetries = idempotentMethods.has(request.method) && request.retryable !== false ? callRetries : 0;
    const outgoing: Outgoing = {
      url: `${this.baseUrl}${request.path}${encodeQuery(request.query)}`,
      method: request.method,
      // Later sets win, by lower-cased name: the SDK's defaults, the client's, the credential, the call's.
      headers: mergeHeaders(
        this.#sdkHeaders,
        this.#headers,
        await this.#credentials(request.auth),
        request.body === undefined ? undefined : { 'content-type': 'application/json' },
        options.headers,
      ),
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    };

    for (let attempt = 0; ; attempt++) {
      let failure: ReleasesError;
      try {
        const result = await this.#attempt<T>(outgoing, request.path, timeoutMs, options.signal);
        if (request.validate) {
          // An operation that returns data got none (an empty 200, a 204): say so, rather than fail later
          // with a TypeError on `undefined`.
          if (result.data === undefined) {
            throw new ResponseValidationError(
              `The ${request.validate} response (${result.response.status}) has no body, where the API contract promises data.`,
            );
          }
          this.#validator?.(request.validate, result.data);
        }
        return result;
      } catch (error) {
        if (!(error instanceof ReleasesError)) throw error;
        failure = error;
      }
      const delay = this.#retryDelay(failure, request.method, attempt, maxRetries);
      if (delay === undefined) throw failure;
      this.#log.info(
        `releases: retrying ${request.method} ${request.path} in ${Math.round(delay)} ms (attempt ${attempt + 2} of ${maxRetries + 1}): ${failure.message}`,
      );
      await sleep(delay, options.signal);
    }
  }

  /** How long to wait before retrying, or undefined to give up. */
  #retryDelay(failure: ReleasesError, method: string, attempt: number, maxRetries: number): number | undefined {
    const retryable =
      failure instanceof ConnectionError ||
      (failure instanceof APIError &&
        (retryableStatuses.has(failure.status) || (failure.status === 500 && method === 'GET')));
    if (!retryable || attempt >= maxRetries) return undefined;
    if (failure instanceof APIError) {
      const requested = parseRetryAfter(failure.headers);
      // A server asking for more than a minute means "not now": surface it instead of hanging the caller.
      if (requested !== undefined) {
        return requested > maxRetryAfterMs ? undefined : retryAfterDelayMs(requested, Math.random());
      }
    }
    return backoffDelayMs(attempt, this.#backoff, Math.random());
  }

  /** One request, its redirects and its body, under its own timeout. */
  async #attempt<T>(
    outgoing: Outgoing,
    path: string,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<WithResponse<T>> {
    if (callerSignal?.aborted) throw callerSignal.reason;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(callerSignal!.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const started = Date.now();
    try {
      const response = await this.#fetchWithinOrigin(outgoing, path, controller.signal);
      // Reading the body is part of the attempt: the timer still runs.
      const text = await transport(() => response.text());
      const requestId = response.headers.get(headerNames.requestId) ?? undefined;
      this.#log.debug(
        `releases: ${outgoing.method} ${path} → ${response.status} in ${Date.now() - started} ms${requestId === undefined ? '' : ` (request id ${requestId})`}`,
      );
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
      keepBody(response, text);
      return { data: parsed as T, response, requestId };
    } catch (thrown) {
      if (!(thrown instanceof TransportFailure)) throw thrown;
      const error = thrown.error;
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timedOut) {
        throw new TimeoutError(`${outgoing.method} ${path} timed out after ${timeoutMs} ms`, { cause: error });
      }
      // The default fetch rejects only when no complete answer came, whatever each runtime calls it (Bun: a
      // TypeError with a code; workerd: an Error "Network connection lost."; Deno: "error reading a body
      // from connection"). A fetch passed in may also throw for a bug of its own: only what looks like a
      // network failure is taken for one there.
      if (this.#fetch === globalFetch || isNetworkError(error)) {
        throw new ConnectionError(`${outgoing.method} ${addressOf(outgoing.url)} failed: ${describeFailure(error)}`, {
          cause: error,
        });
      }
      // Not the network: a bug in a fetch passed in. As it is, and never retried.
      throw error;
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /**
   * Sends a request with `redirect: 'manual'` and follows redirects only within the base URL's origin:
   * `fetch` keeps custom headers such as `x-api-key` across origins, so following a redirect elsewhere
   * would hand the credential to whoever the server (or anyone who controls its responses) pointed at.
   */
  async #fetchWithinOrigin(first: Outgoing, path: string, signal: AbortSignal): Promise<Response> {
    // Called through a local constant, never as `this.#fetch(...)`: see `globalFetch`.
    const fetchFunction = this.#fetch;
    let { url, method, headers, body } = first;
    for (let hops = 0; ; hops++) {
      this.#log.debug(`releases: ${method} ${url}`, redactHeaders(headers));
      const init: RequestInit = {
        ...this.#fetchOptions,
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal,
        redirect: 'manual',
      };
      const response = await transport(() => fetchFunction(url, init));
      if (response.type === 'opaqueredirect') {
        throw new RedirectError(
          `${first.method} ${path} was redirected, and the browser hides where to from the page; the SDK follows only redirects it can check. Set baseUrl to the API's final address.`,
          0,
          undefined,
        );
      }
      const location = redirectStatuses.has(response.status) ? response.headers.get('location') : null;
      if (location === null) return response;
      // The body of a redirect is not needed: release the connection.
      await response.body?.cancel().catch(() => undefined);
      let target: URL;
      try {
        target = new URL(location, url);
      } catch {
        throw new RedirectError(
          `${first.method} ${path} was redirected (${response.status}) to an invalid Location ${JSON.stringify(location)}.`,
          response.status,
          undefined,
        );
      }
      if (target.origin !== this.#origin) {
        throw new RedirectError(
          `${first.method} ${path} was redirected (${response.status}) to ${target.origin}, another origin. The SDK does not follow it, so your credentials stay with ${this.#origin}; if the API has moved, set baseUrl to its new address.`,
          response.status,
          target.href,
        );
      }
      if (hops >= maxRedirects) {
        throw new RedirectError(
          `${first.method} ${path}: too many redirects (more than ${maxRedirects}), last to ${target.href}.`,
          response.status,
          target.href,
        );
      }
      // As fetch does (WHATWG Fetch, HTTP-redirect fetch): 303, and 301/302 after a POST, become a GET without a body.
      if (
        (response.status === 303 && method !== 'GET' && method !== 'HEAD') ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
        headers = new Headers(headers);
        headers.delete('content-type');
      }
      this.#log.debug(`releases: ${first.method} ${path} → ${response.status}, following it to ${target.href}`);
      url = target.href;
    }
  }
}

/** The address a request went to, as a person reads it in an error: scheme, host, port and path, no query. */
function addressOf(url: string): string {
  try {
    const { origin, pathname } = new URL(url);
    return origin + pathname;
  } catch {
    return url;
  }
}

/** A network failure in words, with the socket's code where the runtime gives one (Node: `fetch failed (ECONNREFUSED)`). */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
