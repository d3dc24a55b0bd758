const maxFilterValues = 20;
const maxFilterValueLength = 64;

/**
 * Every number that more than one package needs. Server, SDK, web app and tests import these;
 * none of them writes the number again.
 */
export const limits = {
  /** Default page size of `GET /api/v1/release`. */
  defaultPageSize: 20,
  /** Largest page size a client may ask for. */
  maxPageSize: 100,
  /** Most values one comma-separated filter may carry. */
  maxFilterValues,
  /** Longest single filter value, in characters. */
  maxFilterValueLength,
  /**
   * Longest one occurrence of a filter parameter may be, in characters once decoded: the most values at their
   * longest, each with room for a comma and a space. The OpenAPI document states it as the parameter's
   * `maxLength` and the server holds parameters to it, so a validator of that document never refuses what the
   * server takes.
   */
  maxFilterParameterLength: maxFilterValues * (maxFilterValueLength + 2),
  /** Longest search text `q`, in characters once trimmed, and most whitespace-separated terms in it (SPEC §3.6). */
  maxSearchLength: 100,
  maxSearchTerms: 8,
  /** Longest cursor the server will try to decode. */
  maxCursorLength: 512,
  /** Largest JSON request body, in bytes. */
  maxJsonBodyBytes: 16 * 1024,
  /** Longest email address (RFC 5321's path limit). */
  maxEmailLength: 254,
  /** Shortest and longest password, in characters. */
  minPasswordLength: 10,
  maxPasswordLength: 256,
  /** Longest API key name, in characters. */
  maxKeyNameLength: 64,
  /** Longest lifetime a new API key may be given, in days. */
  maxKeyLifetimeDays: 365,
  /** Most API keys one account may hold that are neither revoked nor expired. */
  maxActiveKeysPerUser: 25,
  /** Longest resource id, prefix included: `rel_`, `usr_` or `key_` and then at most 60 characters. */
  maxIdLength: 64,
  /** Longest `x-request-id` the server echoes (SPEC §3.4); anything longer is replaced. */
  maxRequestIdLength: 128,
  /**
   * Most values per kind (voice banks, genres, languages) `GET /api/v1/facets` lists, and most keys
   * `GET /api/v1/keys` lists (revoked ones included). Ceilings the document promises so clients can size for
   * them, far above any real catalogue or account; neither route pages its list.
   */
  maxFacetValues: 10_000,
  maxListedApiKeys: 10_000,
  /** Most sessions `GET /api/v1/auth/sessions` lists (the newest); every one of them ends all the same. */
  maxListedSessions: 1_000,
  /** How much of a sign-in's `User-Agent` a session keeps, in characters. */
  maxUserAgentLength: 200,
  /** How long a password reset link works, in minutes (SPEC §3.7). */
  passwordResetLifetimeMinutes: 30,
  /**
   * The per-account sign-in throttle (SPEC §3.7): after this many failed sign-ins to one account within the
   * window, further sign-ins to it are allowed once per turn, from any address, until one succeeds or the
   * password is reset.
   */
  signInThrottle: { failures: 10, windowMinutes: 15, turnSeconds: 60 },
} as const;

/** `relevance` only with `q` (SPEC §3.6), where it is the default. */
export const sortOrders = ['-release_date', 'release_date', 'relevance'] as const;
export type SortOrder = (typeof sortOrders)[number];
/** The sort of a list without `q`. */
export const defaultSortOrder: SortOrder = '-release_date';
/** The sort of a list with `q`. */
export const defaultSearchSortOrder: SortOrder = 'relevance';

export const releaseTypes = ['single', 'album', 'ep', 'compilation'] as const;
export type ReleaseType = (typeof releaseTypes)[number];

/** The query parameters of `GET /api/v1/release` that hold comma-separated lists. */
export const releaseFilterParameters = ['vocaloid_banks', 'genres', 'languages'] as const;
export type ReleaseFilterParameter = (typeof releaseFilterParameters)[number];
