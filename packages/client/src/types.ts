/**
 * The SDK's public types. They are written out (not re-exported from zod or ts-rest) so the published
 * `.d.ts` stands alone; `test/types.test-d.ts` proves each equals the contract schema it mirrors.
 */

export type ReleaseType = 'single' | 'album' | 'ep' | 'compilation';
export type SortOrder = '-release_date' | 'release_date';

export interface ReleaseLink {
  /** Where the link points, e.g. `youtube`, `niconico`, `vocadb`. */
  site: string;
  url: string;
}

export interface Release {
  /** Stable, URL-safe identifier, prefixed `rel_`. */
  id: string;
  title: string;
  /** Producer or circle credited. */
  artist: string;
  /** Calendar date, `YYYY-MM-DD`. */
  release_date: string;
  release_type: ReleaseType;
  /** Voice bank display names, e.g. `Hatsune Miku`. */
  vocaloid_banks: string[];
  /** Lowercase genre names. */
  genres: string[];
  /** BCP 47 language tags. */
  languages: string[];
  track_count: number;
  cover_url: string | null;
  links: ReleaseLink[];
  /** ISO 8601 UTC. */
  created_at: string;
  /** ISO 8601 UTC. */
  updated_at: string;
}

/** Parameters of `client.releases.list()`, by their wire names. */
export interface ReleaseListParams {
  /** Voice bank names; a release matches when it has any of them (case-insensitive). */
  vocaloid_banks?: readonly string[];
  /** Genre names; any of them matches (case-insensitive). */
  genres?: readonly string[];
  /** BCP 47 language tags; any of them matches (case-insensitive). */
  languages?: readonly string[];
  /** Page size, 1 to 100. @default 20 */
  limit?: number;
  /** `-release_date` (newest first) or `release_date`. @default '-release_date' */
  sort?: SortOrder;
  /** Start after this cursor (a previous page's `nextCursor`). Iteration sets it for you. */
  cursor?: string;
}

export interface FacetValue {
  value: string;
  /** Number of releases with this value. */
  count: number;
}

export interface Facets {
  vocaloid_banks: FacetValue[];
  genres: FacetValue[];
  languages: FacetValue[];
  generated_at: string;
}

/** An entry of a validation problem's `errors`. */
export interface ProblemFieldError {
  parameter?: string;
  pointer?: string;
  header?: string;
  detail: string;
  [extension: string]: unknown;
}

/** RFC 9457 problem details, as every error response of the API carries them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: ProblemFieldError[];
  [extension: string]: unknown;
}

/** The wire shape of a release list response. */
export interface ReleaseListResponse {
  success: true;
  data: { releases: Release[]; pagination: string; generated_at: string };
}

/** What a response validator sees: which operation answered, and the parsed JSON body. */
export type ValidatedOperation = 'releases.list' | 'releases.get' | 'facets.list' | 'health.check';

/**
 * Checks a response body against the contract; throws when it does not match. Pass the one from
 * `@releases/client/validation` as the `validateResponses` option.
 */
export interface ResponseValidator {
  (operation: ValidatedOperation, body: unknown): void;
}
