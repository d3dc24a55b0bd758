import type { Api, ApiKey, Facets, Release } from '../src/api.js';
import { formatCatalogueQuery, type CatalogueQuery } from '../src/release-query.js';

/** A release as the API returns it, with only what a test cares about spelled out. */
export function release(n: number, overrides: Partial<Release> = {}): Release {
  return {
    id: `rel_test${n}`,
    title: `Song ${n}`,
    artist: `Producer ${n}`,
    release_date: `2020-01-${String((n % 28) + 1).padStart(2, '0')}`,
    release_type: 'single',
    vocaloid_banks: ['Hatsune Miku'],
    genres: ['rock'],
    languages: ['ja'],
    track_count: 1,
    cover_url: null,
    links: [{ site: 'vocadb', url: `https://vocadb.net/Al/${n}` }],
    created_at: '2024-01-01T00:00:00.000Z',
    updated_at: '2024-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** The whole catalogue's facets, as `GET /api/v1/facets` without parameters answers. */
export const catalogueFacets: Facets = {
  vocaloid_banks: [
    { value: 'Hatsune Miku', count: 42 },
    { value: 'GUMI', count: 17 },
    { value: 'Kagamine Rin', count: 9 },
  ],
  genres: [
    { value: 'rock', count: 30 },
    { value: 'electropop', count: 12 },
  ],
  languages: [
    { value: 'ja', count: 50 },
    { value: 'en', count: 5 },
  ],
  total: 59,
  generated_at: '2024-01-01T00:00:00.000Z',
};

export function apiKey(n: number, overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: `key_test${n}`,
    name: `key ${n}`,
    start: `rls_Abcd123${n}`,
    created_at: '2024-03-01T10:00:00.000Z',
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
    ...overrides,
  };
}

/** An Api whose every method fails unless the test gives it an answer. */
export function fakeApi(overrides: Partial<Api> = {}): Api {
  const unexpected = (name: string) => () => Promise.reject(new Error(`unexpected call: ${name}`));
  return {
    facets: () => Promise.resolve(catalogueFacets),
    releases: unexpected('releases'),
    release: unexpected('release'),
    session: () => Promise.resolve(null),
    signUp: unexpected('signUp'),
    signIn: unexpected('signIn'),
    signOut: unexpected('signOut'),
    listKeys: unexpected('listKeys'),
    createKey: unexpected('createKey'),
    revokeKey: unexpected('revokeKey'),
    changePassword: unexpected('changePassword'),
    listSessions: unexpected('listSessions'),
    revokeSession: unexpected('revokeSession'),
    revokeOtherSessions: unexpected('revokeOtherSessions'),
    requestPasswordReset: unexpected('requestPasswordReset'),
    confirmPasswordReset: unexpected('confirmPasswordReset'),
    deleteAccount: unexpected('deleteAccount'),
    healthUrl: () => 'http://localhost:3000/api/v1/health',
    ...overrides,
  };
}

/**
 * A `facets` that answers from a table keyed by the query's URL form (`''` for the whole catalogue,
 * `?q=melt&genres=rock` for a query), and records every query it was asked.
 */
export function facetsByQuery(answers: Record<string, Partial<Facets>>) {
  const calls: string[] = [];
  const facets = (query?: CatalogueQuery) => {
    const key = query ? formatCatalogueQuery(query) : '';
    calls.push(key);
    const answer = answers[key];
    return answer
      ? Promise.resolve({ ...catalogueFacets, ...answer })
      : Promise.reject(new Error(`no facets for ${key || 'the whole catalogue'}`));
  };
  return { facets, calls };
}
