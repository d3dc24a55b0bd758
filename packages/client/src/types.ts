/**
 * The SDK's public types. They are written out (not re-exported from zod or ts-rest) so the published
 * `.d.ts` stands alone; `test/types.test-d.ts` proves each equals the contract schema it mirrors.
 */

/** The kind of a release. */
export type ReleaseType = 'single' | 'album' | 'ep' | 'compilation';
/**
 * Order of a release list: `-release_date` is newest first, `release_date` oldest first, `relevance` (only with
 * `q`) the best matches first.
 */
export type SortOrder = '-release_date' | 'release_date' | 'relevance';

/** A link from a release to a page about it. */
export interface ReleaseLink {
  /** Where the link points, e.g. `youtube`, `niconico`, `vocadb`. */
  site: string;
  /** Absolute URL of the page. */
  url: string;
}

/** A music release: every field is always present. */
export interface Release {
  /** Stable, URL-safe identifier, prefixed `rel_`. */
  id: string;
  /** Title as published. */
  title: string;
  /** Producer or circle credited. */
  artist: string;
  /** Calendar date, `YYYY-MM-DD`. */
  release_date: string;
  /** Single, album, EP or compilation. */
  release_type: ReleaseType;
  /** Voice bank display names, e.g. `Hatsune Miku`. */
  vocaloid_banks: string[];
  /** Lowercase genre names. */
  genres: string[];
  /** BCP 47 language tags. */
  languages: string[];
  /** Number of tracks, at least 1. */
  track_count: number;
  /** Cover art URL, or null when there is none. */
  cover_url: string | null;
  /** Pages about the release. */
  links: ReleaseLink[];
  /** ISO 8601 UTC. */
  created_at: string;
  /** ISO 8601 UTC. */
  updated_at: string;
}

/**
 * Parameters of `client.releases.list()`, by their wire names. Filters are OR-ed within one filter and
 * AND-ed across filters, all case-insensitively. `undefined` is the same as leaving a field out.
 */
export interface ReleaseListParams extends CatalogueQuery {
  /** Page size, 1 to 100. @default 20 */
  limit?: number | undefined;
  /**
   * `-release_date` (newest first), `release_date` (oldest first), or `relevance` (only with `q`: the title
   * equal to `q`, then starting with it, then holding every term, then the rest, each newest first).
   * @default 'relevance' with `q`, else '-release_date'
   */
  sort?: SortOrder | undefined;
  /** Start after this cursor (a previous page's `nextCursor`). Iteration sets it for you. */
  cursor?: string | undefined;
}

/**
 * What narrows the catalogue, for `releases.list()` and `facets.list()` alike. Filters are OR-ed within one
 * filter and AND-ed with the other filters and `q`, all case-insensitively.
 */
export interface CatalogueQuery {
  /** Voice bank names; a release matches when it has any of them (case-insensitive). */
  vocaloid_banks?: readonly string[] | undefined;
  /** Genre names; any of them matches (case-insensitive). */
  genres?: readonly string[] | undefined;
  /** BCP 47 language tags; any of them matches (case-insensitive). */
  languages?: readonly string[] | undefined;
  /**
   * Search text (1 to 100 characters, at most 8 terms): every term must occur in the title or the artist,
   * ignoring case, width and diacritics. Latin terms match a word's beginning; Japanese, Chinese and Korean
   * terms match anywhere. Empty or blank is the same as leaving it out.
   */
  q?: string | undefined;
}

/** One filter value and how many releases have it. */
export interface FacetValue {
  /** The value, as `releases.list()` takes it: a voice bank name, a genre or a language tag. */
  value: string;
  /** Number of releases with this value. */
  count: number;
}

/**
 * The filter values in the catalogue, most common first. Given a query, each filter's counts are over the
 * releases matching `q` and the other filters, and chosen values are listed even at 0.
 */
export interface Facets {
  /** Voice banks and their release counts. */
  vocaloid_banks: FacetValue[];
  /** Genres and their release counts. */
  genres: FacetValue[];
  /** BCP 47 language tags and their release counts. */
  languages: FacetValue[];
  /** How many releases match the whole query (the whole catalogue without one). */
  total: number;
  /** When the server computed the counts (ISO 8601 UTC). */
  generated_at: string;
}

/**
 * The kinds of problem the API answers with (`type` = `{service}/problems/<kind>`), as `APIError.kind`
 * gives them. A newer server may add kinds; `kind` passes those through as strings.
 */
export type ProblemKind =
  | 'invalid-request'
  | 'invalid-cursor'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'request-timeout'
  | 'conflict'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'expectation-failed'
  | 'rate-limited'
  | 'headers-too-large'
  | 'internal-error'
  | 'service-unavailable';

/** An entry of a validation problem's `errors`: what was wrong, and where. */
export interface ProblemFieldError {
  /** The query or path parameter at fault, e.g. `limit`. */
  parameter?: string;
  /** The JSON pointer of the body field at fault, e.g. `/password`. */
  pointer?: string;
  /** The request header at fault. */
  header?: string;
  /** What is wrong with it, for people. */
  detail: string;
  /** Members a newer server may add. */
  [extension: string]: unknown;
}

/** RFC 9457 problem details, as every error response of the API carries them. */
export interface Problem {
  /** URI of the problem kind, `{service}/problems/<kind>`: a page that explains it. */
  type: string;
  /** Short summary of the kind, the same for every occurrence. */
  title: string;
  /** The HTTP status. */
  status: number;
  /** What went wrong this time, for people. */
  detail: string;
  /** `urn:uuid:<request id>`: this occurrence. */
  instance?: string;
  /** For validation problems: each parameter or field at fault. */
  errors?: ProblemFieldError[];
  /** Members a newer server may add. */
  [extension: string]: unknown;
}

/** The wire shape of a release list response. */
export interface ReleaseListResponse {
  /** Always true on a 2xx. */
  success: true;
  /** The page: its releases, the next cursor (`''` on the last page) and when it was generated. */
  data: {
    /** The releases of the page. */
    releases: Release[];
    /** The next page's cursor, or `''` on the last page. */
    pagination: string;
    /** When the server generated the page (ISO 8601 UTC). */
    generated_at: string;
  };
}

/** A user account. */
export interface User {
  /** Stable identifier, prefixed `usr_`. */
  id: string;
  /** The email address, trimmed and lower-cased. */
  email: string;
  /** When the account was created (ISO 8601 UTC). */
  created_at: string;
}

/** A session, as signing up or in returns it. */
export interface Session {
  /**
   * The session token: the value of the session cookie, and what `Authorization: Bearer` takes. Pass it as
   * `sessionToken` (or to `client.withSession()`) to act as this user from a server.
   */
  token: string;
  /** When the session ends unless used: the earlier of the idle and the absolute expiry (ISO 8601 UTC). */
  expires_at: string;
}

/** What `auth.signup()` and `auth.login()` resolve to. */
export interface AuthResult {
  /** The signed-in account. */
  user: User;
  /** The new session; in a browser the session cookie is set as well. */
  session: Session;
}

/** What `auth.session()` resolves to: who is signed in, and until when. */
export interface SessionInfo {
  /** The signed-in account. */
  user: User;
  /** The session's expiry (its token is not repeated). */
  session: {
    /** When the session ends unless used (ISO 8601 UTC). */
    expires_at: string;
  };
}

/** Email and password, for `auth.signup()` and `auth.login()`. */
export interface Credentials {
  /** Trimmed and compared case-insensitively by the server. */
  email: string;
  /** 10 to 256 characters for a new account, and not the email address. */
  password: string;
}

/** An API key as listed: never the key itself. */
export interface ApiKey {
  /** Stable identifier, prefixed `key_`: what `keys.revoke()` takes. */
  id: string;
  /** The name given at creation, 1 to 64 characters. */
  name: string;
  /** The first characters of the key, to recognise it: `rls_AbCd1234`. */
  start: string;
  /** When the key was created (ISO 8601 UTC). */
  created_at: string;
  /** When the key was last used (updated at most once a minute), or null when never. */
  last_used_at: string | null;
  /** When the key stops working, or null when it never expires. */
  expires_at: string | null;
  /** When the key was revoked, or null when it was not. */
  revoked_at: string | null;
}

/** A newly created API key: the only time the key itself is shown. */
export interface CreatedApiKey extends ApiKey {
  /** The key (`rls_...`): store it now, it is never shown again. */
  key: string;
}

/** What `keys.list()` resolves to. */
export interface ApiKeyList {
  /** Every key of the account, newest first, revoked and expired ones included. */
  keys: ApiKey[];
}

/** Parameters of `keys.create()`. */
export interface CreateApiKeyParams {
  /** A name to recognise the key by, 1 to 64 characters. */
  name: string;
  /** Days until the key stops working, 1 to 365; leave it out for a key that never expires. */
  expires_in_days?: number | undefined;
}

/** Parameters of `auth.changePassword()`. */
export interface ChangePasswordParams {
  /** The password the account has now. */
  current_password: string;
  /** The new password: 10 to 256 characters, not the email address, not one of the most common passwords. */
  new_password: string;
}

/** A session as `auth.sessions.list()` describes it: where the account is signed in. Never its token. */
export interface ActiveSession {
  /** Stable identifier, prefixed `ses_`: what `auth.sessions.revoke()` takes. Not derived from the token. */
  id: string;
  /** When signing in (or up) started it (ISO 8601 UTC). */
  created_at: string;
  /** When it was last used, updated at most once a minute (ISO 8601 UTC). */
  last_used_at: string;
  /** When it ends unless used: the earlier of the idle and the absolute expiry (ISO 8601 UTC). */
  expires_at: string;
  /** The `User-Agent` that signed in, its first 200 characters, or null when none was sent. */
  user_agent: string | null;
  /** Whether this is the session the request was made with. */
  current: boolean;
}

/** What `auth.sessions.list()` resolves to. */
export interface ActiveSessionList {
  /** The account's live sessions, newest first. */
  sessions: ActiveSession[];
}

/** Parameters of `auth.requestPasswordReset()`. */
export interface PasswordResetRequestParams {
  /** The account's email (trimmed and compared case-insensitively by the server). */
  email: string;
}

/** What `auth.requestPasswordReset()` resolves to: the same whether or not an account has the email. */
export interface PasswordResetRequested {
  /** How long the mailed link works, in minutes, if an account has the email (the answer does not say). */
  expires_in_minutes: number;
}

/** Parameters of `auth.confirmPasswordReset()`. */
export interface PasswordResetConfirmParams {
  /** The token from the reset link: what follows `#token=` in it. */
  token: string;
  /** The new password: 10 to 256 characters, not the email address, not one of the most common passwords. */
  new_password: string;
}

/** Parameters of `auth.deleteAccount()`. */
export interface DeleteAccountParams {
  /** The account's password: a session alone cannot delete the account. */
  password: string;
}

/** What a response validator sees: which operation answered (its body is checked against its schema). */
export type ValidatedOperation =
  | 'releases.list'
  | 'releases.get'
  | 'facets.list'
  | 'health.check'
  | 'auth.signup'
  | 'auth.login'
  | 'auth.session'
  | 'auth.listSessions'
  | 'auth.requestPasswordReset'
  | 'keys.list'
  | 'keys.create'
  | 'keys.revoke';

/**
 * Checks a response body against the contract; throws when it does not match. Pass the one from
 * `@releases/client/validation` as the `validateResponses` option.
 */
export interface ResponseValidator {
  (operation: ValidatedOperation, body: unknown): void;
}
