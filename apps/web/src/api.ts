import {
  APIError,
  AuthenticationError,
  ConnectionError,
  RateLimitError,
  ReleasesClient,
  type ActiveSession,
  type ApiKey,
  type CreatedApiKey,
  type Credentials,
  type Facets,
  type FacetValue,
  type Release,
  type User,
} from '@releases/client';
import { apiPaths } from '@releases/contract/wire';
import type { CatalogueQuery, ReleaseQuery } from './release-query.js';

export type { ActiveSession, ApiKey, CreatedApiKey, Credentials, Facets, FacetValue, Release, User };

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
  /**
   * The filter values with their counts, and `total`, the number of releases matching: over the whole
   * catalogue without a query; with one, each filter's counts over the search and the other filters.
   */
  facets(query?: CatalogueQuery, signal?: AbortSignal): Promise<Facets>;
  /** A page of releases; `limit` (1 to 100) when not the API's default page size. */
  releases(
    query: ReleaseQuery,
    cursor: string | undefined,
    signal?: AbortSignal,
    limit?: number,
  ): Promise<ReleasePageResult>;
  /** One release by id; `NotFoundError` when there is none. */
  release(id: string, signal?: AbortSignal): Promise<Release>;
  /** The signed-in user, or `null` when the browser has no (valid) session cookie. */
  session(): Promise<User | null>;
  signUp(credentials: Credentials): Promise<User>;
  signIn(credentials: Credentials): Promise<User>;
  signOut(): Promise<void>;
  listKeys(): Promise<ApiKey[]>;
  createKey(key: NewKey): Promise<CreatedApiKey>;
  revokeKey(id: string): Promise<ApiKey>;
  changePassword(change: { currentPassword: string; newPassword: string }): Promise<void>;
  listSessions(): Promise<ActiveSession[]>;
  /** Ends one session; ending the current one signs this browser out. */
  revokeSession(id: string): Promise<void>;
  revokeOtherSessions(): Promise<void>;
  requestPasswordReset(email: string): Promise<void>;
  confirmPasswordReset(reset: { token: string; newPassword: string }): Promise<void>;
  deleteAccount(password: string): Promise<void>;
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

  // Reads are not retried by the SDK: a 429's wait (up to a minute) would be an unexplained "Loading…".
  // The pages show what happened instead, with a countdown to their own retry (see `retryDelay`).
  const read = (signal: AbortSignal | undefined) => ({ maxRetries: 0, ...(signal ? { signal } : {}) });

  return {
    async facets(query, signal) {
      return await client.facets.list(query ? catalogueParams(query) : {}, read(signal));
    },

    async releases(query, cursor, signal, limit) {
      const page = await client.releases.list(
        {
          ...catalogueParams(query),
          // Relevance is the API's order for a search, so it is left implicit; without a search the API
          // refuses it, and this never sends it.
          ...(query.sort === 'relevance' ? {} : { sort: query.sort }),
          ...(cursor ? { cursor } : {}),
          ...(limit === undefined ? {} : { limit }),
        },
        read(signal),
      );
      return { releases: page.releases, nextCursor: page.nextCursor };
    },

    async release(id, signal) {
      return await client.releases.get(id, read(signal));
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

    async changePassword({ currentPassword, newPassword }) {
      await client.auth.changePassword({ current_password: currentPassword, new_password: newPassword });
    },

    async listSessions() {
      return (await client.auth.sessions.list()).sessions;
    },

    async revokeSession(id) {
      await client.auth.sessions.revoke(id);
    },

    async revokeOtherSessions() {
      await client.auth.sessions.revokeOthers();
    },

    async requestPasswordReset(email) {
      await client.auth.requestPasswordReset({ email });
    },

    async confirmPasswordReset({ token, newPassword }) {
      await client.auth.confirmPasswordReset({ token, new_password: newPassword });
    },

    async deleteAccount(password) {
      await client.auth.deleteAccount({ password });
    },

    healthUrl: () => `${origin}${apiPaths.health}`,
  };
}

/** The filters and search as the SDK takes them: empty ones left out. */
function catalogueParams(query: CatalogueQuery) {
  return {
    ...(query.vocaloid_banks.length ? { vocaloid_banks: query.vocaloid_banks } : {}),
    ...(query.genres.length ? { genres: query.genres } : {}),
    ...(query.languages.length ? { languages: query.languages } : {}),
    ...(query.q ? { q: query.q } : {}),
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
 * How long to wait before trying a refused read again: the server's `Retry-After` for a 429, else undefined
 * (the page offers a Retry button instead). A 429 without a usable `Retry-After` waits a few seconds.
 */
export function retryDelay(error: unknown): number | undefined {
  if (!(error instanceof RateLimitError)) return undefined;
  return Math.max(1_000, Math.min(error.retryAfterMs ?? 5_000, 60_000));
}

/** One validation error as the API reported it: the field (`/email` → `email`) or parameter it names. */
export interface FieldProblem {
  field: string;
  detail: string;
}

/**
 * Validation problems name each body field by JSON pointer (`/email`) and each query parameter by name; this
 * lists them by field, first problem per field only.
 */
export function fieldProblems(error: unknown): FieldProblem[] {
  if (!(error instanceof APIError)) return [];
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const entry of error.errors) {
    const field = entry.pointer?.replace(/^\//, '') ?? entry.parameter;
    if (!field || seen.has(field)) continue;
    seen.add(field);
    problems.push({ field, detail: entry.detail });
  }
  return problems;
}

/**
 * Each field's message in words, beside the field: the field's own label then the API's rule ("Password must
 * be at least 10 characters."), never the wire form (`/password must be ...`).
 */
export function fieldErrors(error: unknown, labels: Record<string, string> = {}): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const { field, detail } of fieldProblems(error)) {
    fields[field] = sentence(labels[field] ?? humanName(field), detail);
  }
  return fields;
}

/** `new_password` → `New password`, for a field no form named. */
function humanName(field: string): string {
  const words = field.replace(/[_/.-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function sentence(label: string, detail: string): string {
  const text = `${label} ${detail.trim()}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The session is missing or over: the caller should sign in (again). */
export function isSignedOutError(error: unknown): boolean {
  return error instanceof AuthenticationError;
}
