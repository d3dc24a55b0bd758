import { releaseFilterParameters } from '@releases/contract/wire';
import { APIPromise, type WithResponse } from './api-promise.js';
import { ReleasesError } from './errors.js';
import { operations, pathWithId, type Operation } from './operations.js';
import type { RawRequest, RequestOptions } from './options.js';
import { ReleasePage, ReleasePagePromise, type PageFetcher } from './pagination.js';
import type {
  ActiveSessionList,
  ApiKey,
  ApiKeyList,
  CatalogueQuery,
  AuthResult,
  ChangePasswordParams,
  CreateApiKeyParams,
  CreatedApiKey,
  Credentials,
  DeleteAccountParams,
  Facets,
  PasswordResetConfirmParams,
  PasswordResetRequested,
  PasswordResetRequestParams,
  Release,
  ReleaseListParams,
  ReleaseListResponse,
  SessionInfo,
  ValidatedOperation,
} from './types.js';

/** A request as a resource hands it to the client: an operation's route and credential, and the call's data. */
export interface ApiRequest extends Omit<Operation, 'method'> {
  /** The HTTP method (`client.request()` may use any). */
  method: RawRequest['method'];
  /** Query parameters (see `RawRequest.query`). */
  query?: RawRequest['query'];
  /** The JSON body, if any. */
  body?: unknown;
  /** The caller's per-call options. */
  options?: RequestOptions | undefined;
  /** The operation whose response body the opt-in validator checks. */
  validate?: ValidatedOperation;
  /** `false`: never retried, whatever its method (a repeat of it would not answer the same). */
  retryable?: false;
}

/** Sends one request with the client's credentials, retries, timeouts and errors; resolves to the parsed body. */
export type Requester = <T>(request: ApiRequest) => Promise<WithResponse<T>>;

/** Starts a call and maps its body to the data the caller gets; a throw before sending becomes a rejection. */
function call<Body, Data>(start: () => Promise<WithResponse<Body>>, data: (body: Body) => Data): APIPromise<Data> {
  let pending: Promise<WithResponse<Body>>;
  try {
    pending = start();
  } catch (error) {
    pending = Promise.reject(error);
  }
  return new APIPromise(pending.then((result) => ({ ...result, data: data(result.data) })));
}

/** The API's success envelope. */
interface Envelope<T> {
  data: T;
}
const unwrap = <T>(body: Envelope<T>): T => body.data;

const requestOptionNames = ['signal', 'timeoutMs', 'maxRetries', 'headers'] as const;

/** Turns the filters and `q` into the wire query, refusing what the server would silently read otherwise. */
function catalogueQuery(params: CatalogueQuery): NonNullable<RawRequest['query']> {
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
  if (params.q !== undefined && typeof params.q !== 'string') throw new ReleasesError('q must be a string.');
  // Request options where the query goes: `facets.list({ signal })` from before it took a query would
  // otherwise drop the options without a word.
  const misplaced = requestOptionNames.filter((name) => name in params);
  if (misplaced.length > 0) {
    throw new ReleasesError(
      `${misplaced.join(', ')} is a request option, not a query parameter: pass it second, e.g. facets.list({}, { signal }).`,
    );
  }
  return {
    vocaloid_banks: params.vocaloid_banks,
    genres: params.genres,
    languages: params.languages,
    q: params.q,
  };
}

function listQuery(params: ReleaseListParams): NonNullable<RawRequest['query']> {
  return {
    ...catalogueQuery(params),
    limit: params.limit,
    sort: params.sort,
    cursor: params.cursor,
  };
}

/** `client.health`: is the API key good and the service up? */
export class HealthResource {
  readonly #request: Requester;

  /** Made by `ReleasesClient`; use `client.health`. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * Checks the API key and the service (`GET /api/v1/health`, API key only).
   * @returns `"OK"`; throws `AuthenticationError` for a missing or bad key, `ServiceUnavailableError` when a
   * dependency is down.
   */
  readonly check = (options?: RequestOptions): APIPromise<'OK'> => {
    return call(
      () => this.#request<'OK'>({ ...operations['health.check'], options, validate: 'health.check' }),
      (body) => body,
    );
  };
}

/** `client.releases`: the catalogue. */
export class ReleasesResource {
  readonly #request: Requester;

  /** Made by `ReleasesClient`; use `client.releases`. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * A page of releases (`GET /api/v1/release`). Await it for the first page, or iterate it with
   * `for await` for every release of every page.
   * @example for await (const release of client.releases.list({ genres: ['rock'] })) console.log(release.title);
   */
  readonly list = (params: ReleaseListParams = {}, options?: RequestOptions): ReleasePagePromise => {
    const fetchPage: PageFetcher = (pageParams) =>
      this.#request<ReleaseListResponse>({
        ...operations['releases.list'],
        query: listQuery(pageParams),
        options,
        validate: 'releases.list',
      }).then((result) => ({
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
  };

  /**
   * One release by id (`GET /api/v1/release/{id}`); `NotFoundError` when there is none. An empty id is
   * refused before any request.
   */
  readonly get = (id: string, options?: RequestOptions): APIPromise<Release> => {
    return call(
      () =>
        this.#request<Envelope<Release>>({
          ...operations['releases.get'],
          path: pathWithId(operations['releases.get'].path, id, 'The release'),
          options,
          validate: 'releases.get',
        }),
      unwrap,
    );
  };
}

/** `client.facets`: the filter values in the catalogue. */
export class FacetsResource {
  readonly #request: Requester;

  /** Made by `ReleasesClient`; use `client.facets`. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * Voice banks, genres and languages with their release counts (`GET /api/v1/facets`). Given the list's
   * filters and `q`, the counts are in context and `total` is the number of matches.
   * @example const { genres, total } = await client.facets.list({ vocaloid_banks: ['KAFU'], q: 'melt' });
   */
  readonly list = (params: CatalogueQuery = {}, options?: RequestOptions): APIPromise<Facets> => {
    return call(
      () =>
        this.#request<Envelope<Facets>>({
          ...operations['facets.list'],
          query: catalogueQuery(params),
          options,
          validate: 'facets.list',
        }),
      unwrap,
    );
  };
}

/**
 * `client.auth`: accounts and sessions. From a server, continue with the token that signing in returns:
 * `client.withSession(session.token)`. In a browser on the service's origin, the session cookie the
 * server sets does the same (create the client with `fetchOptions: { credentials: 'include' }`).
 * Signing up and in are POSTs, never retried.
 */
export class AuthResource {
  readonly #request: Requester;
  /** Where the account is signed in: list its sessions, end one, or end every other one. */
  readonly sessions: SessionsResource;

  /** Made by `ReleasesClient`; use `client.auth`. */
  constructor(request: Requester) {
    this.#request = request;
    this.sessions = new SessionsResource(request);
  }

  /**
   * Creates an account and signs it in (`POST /api/v1/auth/signup`). `ConflictError` when the email is
   * taken, `PermissionDeniedError` when the service does not allow signing up, `BadRequestError` for a
   * password that breaks the rules (10 to 256 characters, not the email).
   * @example const { user, session } = await client.auth.signup({ email, password });
   */
  readonly signup = (credentials: Credentials, options?: RequestOptions): APIPromise<AuthResult> => {
    return call(
      () =>
        this.#request<Envelope<AuthResult>>({
          ...operations['auth.signup'],
          body: { email: credentials.email, password: credentials.password },
          options,
          validate: 'auth.signup',
        }),
      unwrap,
    );
  };

  /**
   * Signs in and starts a new session (`POST /api/v1/auth/login`); `AuthenticationError` when the email or
   * password is wrong.
   * @example const me = client.withSession((await client.auth.login({ email, password })).session.token);
   */
  readonly login = (credentials: Credentials, options?: RequestOptions): APIPromise<AuthResult> => {
    return call(
      () =>
        this.#request<Envelope<AuthResult>>({
          ...operations['auth.login'],
          body: { email: credentials.email, password: credentials.password },
          options,
          validate: 'auth.login',
        }),
      unwrap,
    );
  };

  /** Ends the current session and clears the session cookie (`POST /api/v1/auth/logout`). */
  readonly logout = (options?: RequestOptions): APIPromise<void> => {
    return call<undefined, void>(
      () => this.#request<undefined>({ ...operations['auth.logout'], options }),
      () => undefined,
    );
  };

  /** Who is signed in, and when the session ends unless used (`GET /api/v1/auth/session`). */
  readonly session = (options?: RequestOptions): APIPromise<SessionInfo> => {
    return call(
      () => this.#request<Envelope<SessionInfo>>({ ...operations['auth.session'], options, validate: 'auth.session' }),
      unwrap,
    );
  };

  /**
   * Changes the password (`POST /api/v1/auth/password`, never retried). Every other session of the account
   * ends; this one stays signed in. `AuthenticationError` when `current_password` is wrong, `BadRequestError`
   * naming `new_password` when the new one breaks a rule (10 to 256 characters, not the email address, not one
   * of the most common passwords), `RateLimitError` while the account's sign-in throttle holds.
   * @example await me.auth.changePassword({ current_password: old, new_password: 'a new long passphrase' });
   */
  readonly changePassword = (params: ChangePasswordParams, options?: RequestOptions): APIPromise<void> => {
    return call<undefined, void>(
      () =>
        this.#request<undefined>({
          ...operations['auth.changePassword'],
          body: { current_password: params.current_password, new_password: params.new_password },
          options,
        }),
      () => undefined,
    );
  };

  /**
   * Asks for a password reset link by mail (`POST /api/v1/auth/password-reset`, no credential, never retried).
   * Resolves the same whether or not an account has the email, so it tells nobody which emails have accounts.
   * The link (`{service}/reset-password#token=...`) works once, for `expires_in_minutes`; asking again
   * replaces it.
   * @example await client.auth.requestPasswordReset({ email: 'miku@example.com' });
   */
  readonly requestPasswordReset = (
    params: PasswordResetRequestParams,
    options?: RequestOptions,
  ): APIPromise<PasswordResetRequested> => {
    return call(
      () =>
        this.#request<Envelope<PasswordResetRequested>>({
          ...operations['auth.requestPasswordReset'],
          body: { email: params.email },
          options,
          validate: 'auth.requestPasswordReset',
        }),
      unwrap,
    );
  };

  /**
   * Sets a new password with the token of a reset link (`POST /api/v1/auth/password-reset/confirm`, no
   * credential, never retried). Every session of the account ends: sign in again with the new password.
   * `BadRequestError` naming `token` for an unknown, used or expired token, or naming `new_password` when the
   * new one breaks a rule.
   * @example
   * const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
   * await client.auth.confirmPasswordReset({ token, new_password: 'a new long passphrase' });
   */
  readonly confirmPasswordReset = (params: PasswordResetConfirmParams, options?: RequestOptions): APIPromise<void> => {
    return call<undefined, void>(
      () =>
        this.#request<undefined>({
          ...operations['auth.confirmPasswordReset'],
          body: { token: params.token, new_password: params.new_password },
          options,
        }),
      () => undefined,
    );
  };

  /**
   * Deletes the account for good (`DELETE /api/v1/auth/account`, never retried: a repeat would find no
   * session), with its sessions and API keys; the session cookie is cleared. Takes the account's password:
   * `AuthenticationError` when it is wrong; `ServiceUnavailableError` when the service's key manager cannot
   * revoke the keys (nothing was deleted: try again).
   * @example await me.auth.deleteAccount({ password });
   */
  readonly deleteAccount = (params: DeleteAccountParams, options?: RequestOptions): APIPromise<void> => {
    return call<undefined, void>(
      () =>
        this.#request<undefined>({
          ...operations['auth.deleteAccount'],
          body: { password: params.password },
          options,
          retryable: false,
        }),
      () => undefined,
    );
  };
}

/**
 * `client.auth.sessions`: where the signed-in account is signed in. Takes a session; ending sessions is never
 * refused by the account's rate limit, so an owner can always shut out a stolen session.
 */
export class SessionsResource {
  readonly #request: Requester;

  /** Made by `ReleasesClient`; use `client.auth.sessions`. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * The account's live sessions, newest first (`GET /api/v1/auth/sessions`); `current` marks the one this
   * client uses. Never their tokens.
   * @example for (const s of (await me.auth.sessions.list()).sessions) console.log(s.id, s.user_agent, s.current);
   */
  readonly list = (options?: RequestOptions): APIPromise<ActiveSessionList> => {
    return call(
      () =>
        this.#request<Envelope<ActiveSessionList>>({
          ...operations['auth.listSessions'],
          options,
          validate: 'auth.listSessions',
        }),
      unwrap,
    );
  };

  /**
   * Ends one session by id (`DELETE /api/v1/auth/sessions/{id}`): it is refused from then on. Ending the
   * current one signs this client out (and clears the cookie in a browser). `NotFoundError` for an unknown id
   * or another account's session.
   */
  readonly revoke = (id: string, options?: RequestOptions): APIPromise<void> => {
    return call<undefined, void>(
      () =>
        this.#request<undefined>({
          ...operations['auth.revokeSession'],
          path: pathWithId(operations['auth.revokeSession'].path, id, 'The session'),
          options,
        }),
      () => undefined,
    );
  };

  /** Ends every session of the account but the current one (`DELETE /api/v1/auth/sessions`): signed out elsewhere. */
  readonly revokeOthers = (options?: RequestOptions): APIPromise<void> => {
    return call<undefined, void>(
      () => this.#request<undefined>({ ...operations['auth.revokeOtherSessions'], options }),
      () => undefined,
    );
  };
}

/**
 * `client.keys`: the signed-in account's API keys. Takes a session (a `sessionToken`, or the cookie in a
 * browser); an API key can never list or create keys.
 */
export class KeysResource {
  readonly #request: Requester;

  /** Made by `ReleasesClient`; use `client.keys`. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /** Every key of the account, newest first, revoked and expired ones included (`GET /api/v1/keys`). */
  readonly list = (options?: RequestOptions): APIPromise<ApiKeyList> => {
    return call(
      () => this.#request<Envelope<ApiKeyList>>({ ...operations['keys.list'], options, validate: 'keys.list' }),
      unwrap,
    );
  };

  /**
   * Creates a key (`POST /api/v1/keys`, never retried). The result's `key` is the only time the key itself
   * is shown: store it now. `ConflictError` when the account already holds the most active keys it may.
   * @example const { key } = await me.keys.create({ name: 'ci', expires_in_days: 90 });
   */
  readonly create = (params: CreateApiKeyParams, options?: RequestOptions): APIPromise<CreatedApiKey> => {
    return call(
      () =>
        this.#request<Envelope<CreatedApiKey>>({
          ...operations['keys.create'],
          body: { name: params.name, expires_in_days: params.expires_in_days },
          options,
          validate: 'keys.create',
        }),
      unwrap,
    );
  };

  /**
   * Revokes a key by id (`DELETE /api/v1/keys/{id}`): it stops working everywhere within 5 seconds.
   * Revoking twice answers the same, so this is retried like a GET. `NotFoundError` for an unknown id or
   * another account's key.
   */
  readonly revoke = (id: string, options?: RequestOptions): APIPromise<ApiKey> => {
    return call(
      () =>
        this.#request<Envelope<ApiKey>>({
          ...operations['keys.revoke'],
          path: pathWithId(operations['keys.revoke'].path, id, 'The API key'),
          options,
          validate: 'keys.revoke',
        }),
      unwrap,
    );
  };
}
