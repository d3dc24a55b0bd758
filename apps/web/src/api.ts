import {
  APIError,
  AuthenticationError,
  ConnectionError,
  ReleasesClient,
  type Facets,
  type FacetValue,
  type Release,
} from '@releases/client';
import type { ApiKey, CreatedApiKey, User } from '@releases/contract';
import { apiPaths } from '@releases/contract/wire';
import type { ReleaseQuery } from './release-query.js';

export type { ApiKey, CreatedApiKey, Facets, FacetValue, Release, User };

export interface ReleasePageResult {
  releases: Release[];
  /** The next page's cursor, `''` on the last page. */
  nextCursor: string;
}

export interface Credentials {
  email: string;
  password: string;
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

interface Envelope<T> {
  data: T;
}

/**
 * The real API, through the SDK, on this page's origin. The session cookie is the browser's only credential:
 * it is `HttpOnly`, so no script (ours included) can read it, and nothing is kept in Web Storage.
 */
export function createApi(origin: string = window.location.origin): Api {
  const client = new ReleasesClient({
    baseUrl: origin,
    fetchOptions: { credentials: 'include' },
    // The SDK calls its `fetch` as a method of the client, which Chromium refuses for the native fetch
    // ("Illegal invocation"); this wrapper calls it unbound. It goes once the SDK's browser fix lands.
    fetch: (...args) => globalThis.fetch(...args),
    // Someone is waiting on a screen: retry sooner than the SDK's server-friendly default.
    retryBackoff: { baseDelayMs: 200, maxDelayMs: 2_000 },
    timeoutMs: 15_000,
  });
  const keyPath = (id: string) => apiPaths.key.replace(':id', encodeURIComponent(id));

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
        const response = await client.request<Envelope<{ user: User }>>({
          method: 'GET',
          path: apiPaths.session,
          maxRetries: 0,
        });
        return response.data.user;
      } catch (error) {
        if (error instanceof AuthenticationError) return null;
        throw error;
      }
    },

    async signUp(credentials) {
      const response = await client.request<Envelope<{ user: User }>>({
        method: 'POST',
        path: apiPaths.signup,
        body: credentials,
      });
      return response.data.user;
    },

    async signIn(credentials) {
      const response = await client.request<Envelope<{ user: User }>>({
        method: 'POST',
        path: apiPaths.login,
        body: credentials,
      });
      return response.data.user;
    },

    async signOut() {
      await client.request<undefined>({ method: 'POST', path: apiPaths.logout });
    },

    async listKeys() {
      const response = await client.request<Envelope<{ keys: ApiKey[] }>>({ method: 'GET', path: apiPaths.keys });
      return response.data.keys;
    },

    async createKey({ name, expiresInDays }) {
      const response = await client.request<Envelope<CreatedApiKey>>({
        method: 'POST',
        path: apiPaths.keys,
        body: { name, ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }) },
      });
      return response.data;
    },

    async revokeKey(id) {
      const response = await client.request<Envelope<ApiKey>>({ method: 'DELETE', path: keyPath(id) });
      return response.data;
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
