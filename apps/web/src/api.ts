import {
  APIError,
  AuthenticationError,
  ConnectionError,
  ReleasesClient,
  type ApiKey,
  type CreatedApiKey,
  type Credentials,
  type Facets,
  type FacetValue,
  type Release,
  type User,
} from '@releases/client';
import { apiPaths } from '@releases/contract/wire';
import type { ReleaseQuery } from './release-query.js';

export type { ApiKey, CreatedApiKey, Credentials, Facets, FacetValue, Release, User };

export interface ReleasePageResult {
  releases: Release[];
  /** The next page's cursor, `''` on the last page. */
  nextCursor: string;
}

export interface NewKey {
  name: string;
  /** Omitted: the key never expires. */
  expiresInDays?: number;
}

/**
 * Every call the web app makes, in one place. Pages and components depend on this interface (through
 * `ApiProvider`), so component tests hand them a fake and nothing else in the app knows about HTTP.
 */
export interface Api {
  facets(signal?: AbortSignal): Promise<Facets>;
  releases(query: ReleaseQuery, cursor: string | undefined, signal?: AbortSignal): Promise<ReleasePageResult>;
  /** The signed-in user, or `null` when the browser has no (valid) session cookie. */
  session(): Promise<User | null>;
  signUp(credentials: Credentials): Promise<User>;
  signIn(credentials: Credentials): Promise<User>;
  signOut(): Promise<void>;
  listKeys(): Promise<ApiKey[]>;
  createKey(key: NewKey): Promise<CreatedApiKey>;
  revokeKey(id: string): Promise<ApiKey>;
  /** The absolute URL of the health endpoint, for the example `curl` line. */
  healthUrl(): string;
}

/**
 * The real API, through the SDK, on this page's origin. The session cookie is the browser's only credential:
 * it is `HttpOnly`, so no script (ours included) can read it, and nothing is kept in Web Storage. The session
 * token that signing in also returns (for clients outside browsers) is dropped here, never stored.
 */
export function createApi(origin: string = window.location.origin): Api {
  const client = new ReleasesClient({
    baseUrl: origin,
    fetchOptions: { credentials: 'include' },
    // Someone is waiting on a screen: retry sooner than the SDK's server-friendly default.
    retryBackoff: { baseDelayMs: 200, maxDelayMs: 2_000 },
    timeoutMs: 15_000,
  });

  return {
    async facets(signal) {
      return await client.facets.list(signal ? { signal } : {});
    },

    async releases(query, cursor, signal) {
      const page = await client.releases.list(
        {
          ...(query.vocaloid_banks.length ? { vocaloid_banks: query.vocaloid_banks } : {}),
          ...(query.genres.length ? { genres: query.genres } : {}),
          ...(query.languages.length ? { languages: query.languages } : {}),
          sort: query.sort,
          ...(cursor ? { cursor } : {}),
        },
        signal ? { signal } : {},
      );
      return { releases: page.releases, nextCursor: page.nextCursor };
    },

    async session() {
      try {
        return (await client.auth.session({ maxRetries: 0 })).user;
      } catch (error) {
        if (error instanceof AuthenticationError) return null;
        throw error;
      }
    },

    async signUp(credentials) {
      return (await client.auth.signup(credentials)).user;
    },

    async signIn(credentials) {
      return (await client.auth.login(credentials)).user;
    },

    async signOut() {
      await client.auth.logout();
    },

    async listKeys() {
      return (await client.keys.list()).keys;
    },

    async createKey({ name, expiresInDays }) {
      return await client.keys.create({
        name,
        ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }),
      });
    },

    async revokeKey(id) {
      return await client.keys.revoke(id);
    },

    healthUrl: () => `${origin}${apiPaths.health}`,
  };
}

/** What to tell a person about a failed call: the problem's own `detail` when the API sent one. */
export function errorMessage(error: unknown): string {
  if (error instanceof APIError && error.problem) return error.problem.detail;
  if (error instanceof ConnectionError) return 'The service could not be reached. Check your connection and try again.';
  if (error instanceof APIError) return `The service answered with an error (HTTP ${error.status}). Try again.`;
  return 'Something went wrong. Try again.';
}

/**
 * Validation problems name each body field by JSON pointer (`/email`); this maps them to field names so a
 * form can show each message beside its field.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof APIError)) return {};
  const fields: Record<string, string> = {};
  for (const entry of error.errors) {
    const field = entry.pointer?.replace(/^\//, '');
    if (field && !(field in fields)) fields[field] = entry.detail;
  }
  return fields;
}

/** The session is missing or over: the caller should sign in (again). */
export function isSignedOutError(error: unknown): boolean {
  return error instanceof AuthenticationError;
}
