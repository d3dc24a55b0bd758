import type { PerFilter } from '../catalogue/filters.js';

/** Table types for Kysely. Timestamps are ISO 8601 text in both dialects; `release_date` is `YYYY-MM-DD`. */
interface ReleasesTable {
  id: string;
  title: string;
  artist: string;
  release_date: string;
  release_type: string;
  track_count: number;
  cover_url: string | null;
  created_at: string;
  updated_at: string;
  /** The release exactly as the API returns it, serialized once at write time. */
  doc: string;
  /** Title and artist as search compares them (`catalogue/search-text.ts`, `searchableText`). */
  search_title: string;
  search_artist: string;
}

/**
 * Kinds of `release_tags`, one per filter of the contract, stored as small integers to keep the index narrow.
 * The numbers are in the data: a new filter gets a new one, and none is ever reused.
 */
export const tagKinds = { vocaloid_banks: 1, genres: 2, languages: 3 } as const satisfies PerFilter<number>;

/**
 * Kinds of `release_tags` that index the text of releases for search (`catalogue/search-text.ts`): the keys of
 * the title's and the artist's words, and of the title's beginning. Their counts sit in `facet_values` beside
 * the filters' (planning reads them), but they are not facets.
 */
export const searchKinds = { titleWord: 4, artistWord: 5, titleStart: 6 } as const;

/**
 * One row per (release, filter value). `release_date` is copied here so that one index range per value is
 * already in page order: a filter walks only its own matches, newest first, and stops at the page size.
 */
interface ReleaseTagsTable {
  kind: number;
  value_key: string;
  release_date: string;
  release_id: string;
}

/** Each filter value with its display spelling and release count (the facets). */
interface FacetValuesTable {
  kind: number;
  value_key: string;
  display: string;
  release_count: number;
}

interface CatalogueStateTable {
  id: number;
  version: number;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  owner_id: string | null;
  key_hash: string;
  /** The key's id at an external key manager (Unkey); null for keys verified against this database. */
  external_id: string | null;
  display_start: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

interface UsersTable {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: string;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  last_seen_at: string;
  idle_expires_at: string;
  absolute_expires_at: string;
  /** The sign-in's `User-Agent`, its first 200 characters; null when none was sent, and for older sessions. */
  user_agent: string | null;
}

/** At most one pending password reset per user: a newer request replaces the older (SPEC §3.7). */
interface PasswordResetsTable {
  user_id: string;
  /** SHA-256 of the token; the token itself is only ever in the mail. */
  token_hash: string;
  created_at: string;
  expires_at: string;
}

interface ServerSecretsTable {
  name: string;
  value: string;
}

/** Rows of the catalogue tables, as bulk loads write them. */
export type ReleaseRow = ReleasesTable;
export type TagRow = ReleaseTagsTable;

export interface Database {
  releases: ReleasesTable;
  release_tags: ReleaseTagsTable;
  facet_values: FacetValuesTable;
  catalogue_state: CatalogueStateTable;
  api_keys: ApiKeysTable;
  users: UsersTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  server_secrets: ServerSecretsTable;
}
