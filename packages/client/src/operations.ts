import { apiPaths } from '@releases/contract/wire';
import { ReleasesError } from './errors.js';

/**
 * The credential an operation takes, as the contract's route metadata declares it (`RouteAuth`):
 * - `none`: nothing is sent (signing up and in);
 * - `optional`: the API key if the client has one, else the session token;
 * - `api-key`: only the API key (health);
 * - `session`: only the session token (accounts and keys); an API key is never sent there.
 * Sending only what a route reads keeps credentials off the wire where they serve no purpose, and keeps an
 * API key from shadowing the session on routes that refuse keys.
 */
export type OperationAuth = 'none' | 'optional' | 'api-key' | 'session';

/** One SDK operation: its route and the credential it takes. */
export interface Operation {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  auth: OperationAuth;
}

/**
 * Every operation of the SDK. The SDK does not load ts-rest or zod at run time, so this is a copy of the
 * contract's routes; `test/accounts.test.ts` proves each one equal to its contract route.
 */
export const operations = {
  'health.check': { method: 'GET', path: apiPaths.health, auth: 'api-key' },
  'releases.list': { method: 'GET', path: apiPaths.releaseList, auth: 'optional' },
  'releases.get': { method: 'GET', path: apiPaths.release, auth: 'optional' },
  'facets.list': { method: 'GET', path: apiPaths.facets, auth: 'optional' },
  'auth.signup': { method: 'POST', path: apiPaths.signup, auth: 'none' },
  'auth.login': { method: 'POST', path: apiPaths.login, auth: 'none' },
  'auth.logout': { method: 'POST', path: apiPaths.logout, auth: 'session' },
  'auth.session': { method: 'GET', path: apiPaths.session, auth: 'session' },
  'auth.changePassword': { method: 'POST', path: apiPaths.password, auth: 'session' },
  'auth.listSessions': { method: 'GET', path: apiPaths.sessions, auth: 'session' },
  'auth.revokeSession': { method: 'DELETE', path: apiPaths.sessionById, auth: 'session' },
  'auth.revokeOtherSessions': { method: 'DELETE', path: apiPaths.sessions, auth: 'session' },
  'auth.requestPasswordReset': { method: 'POST', path: apiPaths.passwordReset, auth: 'none' },
  'auth.confirmPasswordReset': { method: 'POST', path: apiPaths.passwordResetConfirm, auth: 'none' },
  'auth.deleteAccount': { method: 'DELETE', path: apiPaths.account, auth: 'session' },
  'keys.list': { method: 'GET', path: apiPaths.keys, auth: 'session' },
  'keys.create': { method: 'POST', path: apiPaths.keys, auth: 'session' },
  'keys.revoke': { method: 'DELETE', path: apiPaths.key, auth: 'session' },
} as const satisfies Record<string, Operation>;

/**
 * The path of an operation with its `:id` filled in. An id must be a non-empty string, and is encoded as one
 * path segment: `''` would turn `/release/:id` into the release list, and `.` or `..` would climb the path
 * (URL parsers resolve them, even percent-encoded).
 */
export function pathWithId(path: string, id: unknown, what: string): string {
  if (typeof id !== 'string' || id === '' || id === '.' || id === '..') {
    throw new ReleasesError(
      `${what} id must be a non-empty string other than "." and ".."; got ${JSON.stringify(id)}.`,
    );
  }
  return path.replace(':id', encodeURIComponent(id));
}
