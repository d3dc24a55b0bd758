import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  ActiveSessionListResponseSchema,
  ApiKeyIdParamsSchema,
  ApiKeyListResponseSchema,
  ApiKeyResponseSchema,
  AuthResponseSchema,
  ChangePasswordSchema,
  CreateApiKeySchema,
  CreatedApiKeyResponseSchema,
  CredentialsSchema,
  DeleteAccountSchema,
  LoginSchema,
  PasswordResetConfirmSchema,
  PasswordResetRequestedResponseSchema,
  PasswordResetRequestSchema,
  SessionIdParamsSchema,
  SessionInfoResponseSchema,
} from './accounts.js';
import { apiPaths } from './paths.js';
import { limits } from './limits.js';
import type { ParameterDoc } from './parameter-docs.js';
import { problemKindNames } from './problem-kinds.js';
import { ProblemKindSchema, ProblemSchema } from './problem.js';
import {
  FacetsResponseSchema,
  NoQuerySchema,
  FacetsQuerySchema,
  facetsParameterDocs,
  ReleaseIdParamsSchema,
  ReleaseListQuerySchema,
  ReleaseListResponseSchema,
  ReleaseResponseSchema,
  releaseListParameterDocs,
} from './release.js';

const c = initContract();

/**
 * An error response. Served as `application/problem+json`; declared as a plain schema because the OpenAPI
 * generator of ts-rest 3.52 drops `otherResponse` bodies (the server's document builder sets the media type).
 */
const problem = ProblemSchema;

/**
 * Problems every route can answer with: every request is counted against a rate limit (429, also for the
 * probes and documents), and anything can fail (500).
 */
const everyRoute = { 429: problem, 500: problem } as const;
/** Routes that read or write the database, or verify a credential with it: also 503 while it does not answer. */
const databaseRoute = { ...everyRoute, 503: problem } as const;
/** Problems of routes whose method takes a body (even when the route wants none, a sent one is read). */
const bodyProblems = { 400: problem, 413: problem, 415: problem } as const;

/** An HTML page this service renders; a few kilobytes. */
const htmlPage = z.string().max(64 * 1024);

/** The document `GET /api/v1/openapi.json` serves: an OpenAPI 3.0 document (this one). */
export const OpenApiDocumentSchema = z
  .object({
    openapi: z
      .string()
      .max(16)
      .regex(/^3\.0\.\d+$/),
    info: z.object({ title: z.string().max(256), version: z.string().max(64) }),
    paths: z.object({}).describe('The operations, by path.'),
  })
  .describe('An OpenAPI 3.0 document: this one. Only its required members are spelled out here.');

/**
 * The credential a route takes, declared once here and enforced by one middleware in the server:
 * - `none`: no credential is read (probes, documents, signing up and in).
 * - `optional`: anonymous, an API key or a session; `RELEASES_AUTH=required` turns anonymous callers away.
 * - `api-key`: an API key in `x-api-key`, nothing else.
 * - `session`: a session (cookie or `Authorization: Bearer`); an API key is refused with 403.
 */
export type RouteAuth = 'none' | 'optional' | 'api-key' | 'session';

/**
 * Which quota a route's requests are counted against:
 * - `caller` (the default): the caller's own (anonymous callers per address, API keys per key, sessions per user);
 * - `sign-in`: the strict per-address quota of signing up and in, whoever calls;
 * - `none`: none at all. The probes (an orchestrator polling them must never be told to back off), and the calls
 *   an owner makes to shut an intruder out, which the intruder's own requests must never be able to spend
 *   (SPEC §3.7: sign-out, ending sessions, changing the password, revoking keys, deleting the account).
 */
export type RouteQuota = 'caller' | 'sign-in' | 'none';

export interface RouteMetadata {
  auth: RouteAuth;
  /** Whether browsers on other origins may call it (CORS). */
  publicRead?: boolean;
  /** The quota its requests count against; `caller` when absent. */
  quota?: RouteQuota;
  /**
   * Cross-site request forgery beyond cookie sessions (which are always checked): `sign-in` also refuses a
   * request a browser says is cross-site when it carries no session at all (a forged sign-in would sign the
   * victim into the attacker's account).
   */
  csrf?: 'sign-in';
  /**
   * Its 200 answer depends on nothing but the URL (and `Origin`) while the catalogue stays the same, so the
   * server may keep it and give it again to any caller the route admits, with that caller's own headers.
   */
  replayable?: boolean;
  /** How parameters travel, by name, where the validating schema cannot tell a document generator. */
  parameters?: Record<string, ParameterDoc>;
}

const metadata = (value: RouteMetadata) => value;

const { signInThrottle } = limits;
const newPasswordRules = `The new password must be ${limits.minPasswordLength} to ${limits.maxPasswordLength} characters, not the email address, and not one of the most common passwords (a 400 naming \`new_password\` says which rule it broke).`;

export const contract = c.router(
  {
    release: {
      list: {
        method: 'GET',
        path: apiPaths.releaseList,
        summary: 'List releases',
        description:
          "Releases newest first (or oldest first with `sort=release_date`), filtered by voice bank, genre and language and searched by title and artist (`q`, ranked by `relevance` unless another sort is asked for). Values within one filter are OR-ed, different filters and `q` are AND-ed, all case-insensitively. Pages are keyset-based: pass `data.pagination` back as `cursor` until it is the empty string. The `Link` header carries the next page's URL too. Any other query parameter is a 400 (`invalid-request`) that names it.",
        query: ReleaseListQuerySchema,
        responses: { 200: ReleaseListResponseSchema, 400: problem, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({
          auth: 'optional',
          publicRead: true,
          replayable: true,
          parameters: releaseListParameterDocs,
        }),
      },
      get: {
        method: 'GET',
        path: apiPaths.release,
        summary: 'Get one release',
        pathParams: ReleaseIdParamsSchema,
        query: NoQuerySchema,
        responses: {
          200: ReleaseResponseSchema,
          400: problem,
          401: problem,
          403: problem,
          404: problem,
          ...databaseRoute,
        },
        metadata: metadata({ auth: 'optional', publicRead: true, replayable: true }),
      },
    },
    facets: {
      list: {
        method: 'GET',
        path: apiPaths.facets,
        summary: 'List filter values',
        description:
          "Every voice bank, genre and language in the catalogue with its number of releases, most common first: the values `GET /api/v1/release` filters on. Given the list's filters and `q`, it counts in context: each filter's values over the releases matching `q` and the other two filters (so values within one filter stay OR-able), chosen values listed even at 0, and `total` the releases matching everything.",
        query: FacetsQuerySchema,
        responses: { 200: FacetsResponseSchema, 400: problem, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({
          auth: 'optional',
          publicRead: true,
          replayable: true,
          parameters: facetsParameterDocs,
        }),
      },
    },
    health: {
      check: {
        method: 'GET',
        path: apiPaths.health,
        summary: 'Check an API key and the service',
        description:
          'Answers the JSON string `"OK"` when the API key in `x-api-key` is valid and the database answers; 401 when the key is missing, malformed, unknown, revoked or expired; 403 when the key manager says the key may not call this API; 503 when a dependency does not answer.',
        responses: { 200: z.literal('OK'), 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'api-key', publicRead: true }),
      },
    },
    auth: {
      signup: {
        method: 'POST',
        path: apiPaths.signup,
        summary: 'Create an account',
        description:
          'Creates an account and signs it in: the response carries the session token and sets the session cookie. Closed (403) unless the service allows signing up.',
        body: CredentialsSchema,
        responses: {
          201: AuthResponseSchema,
          ...bodyProblems,
          403: problem,
          409: problem,
          ...databaseRoute,
        },
        metadata: metadata({ auth: 'none', quota: 'sign-in', csrf: 'sign-in' }),
      },
      login: {
        method: 'POST',
        path: apiPaths.login,
        summary: 'Sign in',
        description: `Starts a new session: the response carries the session token (for \`Authorization: Bearer\`) and sets the session cookie. An unknown email and a wrong password get the same 401. After ${signInThrottle.failures} failed sign-ins to one email within ${signInThrottle.windowMinutes} minutes, sign-ins to it are allowed once a minute, from any address (429 with \`Retry-After\` otherwise), until one succeeds or the password is reset.`,
        body: LoginSchema,
        responses: {
          200: AuthResponseSchema,
          ...bodyProblems,
          401: problem,
          403: problem,
          ...databaseRoute,
        },
        metadata: metadata({ auth: 'none', quota: 'sign-in', csrf: 'sign-in' }),
      },
      logout: {
        method: 'POST',
        path: apiPaths.logout,
        summary: 'Sign out',
        description: 'Ends the session that authenticates this request and clears the session cookie.',
        body: c.noBody(),
        responses: {
          204: c.noBody(),
          ...bodyProblems,
          401: problem,
          403: problem,
          ...databaseRoute,
        },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
      session: {
        method: 'GET',
        path: apiPaths.session,
        summary: 'The current session',
        description: 'Who is signed in, and when the session ends unless it is used.',
        responses: { 200: SessionInfoResponseSchema, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'session' }),
      },
      changePassword: {
        method: 'POST',
        path: apiPaths.password,
        summary: 'Change your password',
        description: `Sets a new password. Every other session of the account ends (this one stays signed in), and a pending password reset link stops working. A wrong \`current_password\` is a 401. ${newPasswordRules} Counted against no quota: a stolen session must not keep the owner from locking it out.`,
        body: ChangePasswordSchema,
        responses: { 204: c.noBody(), ...bodyProblems, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
      listSessions: {
        method: 'GET',
        path: apiPaths.sessions,
        summary: 'Where you are signed in',
        description:
          'Every live session of the account, newest first: when it started and was last used, when it ends, the browser or client that signed in, and which one is this request. Never a token. Counted against no quota: the owner needs the ids to end sessions.',
        responses: { 200: ActiveSessionListResponseSchema, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
      revokeSession: {
        method: 'DELETE',
        path: apiPaths.sessionById,
        summary: 'End one of your sessions',
        description:
          "Ends one session of the account: it is refused from the moment this answers on the instance that answered, and within a second on the others. Ending the current session signs out (the session cookie is cleared). Another account's session id is a 404. Counted against no quota.",
        pathParams: SessionIdParamsSchema,
        body: c.noBody(),
        responses: { 204: c.noBody(), ...bodyProblems, 401: problem, 403: problem, 404: problem, ...databaseRoute },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
      revokeOtherSessions: {
        method: 'DELETE',
        path: apiPaths.sessions,
        summary: 'Sign out everywhere else',
        description:
          'Ends every session of the account except the one that makes this request (signed out elsewhere, still signed in here). Counted against no quota.',
        body: c.noBody(),
        responses: { 204: c.noBody(), ...bodyProblems, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
      requestPasswordReset: {
        method: 'POST',
        path: apiPaths.passwordReset,
        summary: 'Ask for a password reset link',
        description: `Mails a link to reset the password to the account with this email, if there is one: \`{PUBLIC_URL}/reset-password#token=<token>\`. The link works for ${limits.passwordResetLifetimeMinutes} minutes and once; asking again replaces it. The answer is the same 202, in the same time, whether or not an account has the email (and the same 503 for every email while the database does not answer). A mail the mail server does not take is tried again until its link expires. Counted against the per-address quota of signing up and in.`,
        body: PasswordResetRequestSchema,
        responses: { 202: PasswordResetRequestedResponseSchema, ...bodyProblems, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'none', quota: 'sign-in', csrf: 'sign-in' }),
      },
      confirmPasswordReset: {
        method: 'POST',
        path: apiPaths.passwordResetConfirm,
        summary: 'Set a new password with a reset link',
        description: `Sets the password of the account the reset token was mailed to. Every session of the account ends, and the sign-in throttle of the account is lifted. An unknown, used or expired token is a 400 naming \`token\`. ${newPasswordRules}`,
        body: PasswordResetConfirmSchema,
        responses: { 204: c.noBody(), ...bodyProblems, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'none', quota: 'sign-in', csrf: 'sign-in' }),
      },
      deleteAccount: {
        method: 'DELETE',
        path: apiPaths.account,
        summary: 'Delete your account',
        description:
          "Deletes the account for good, with its sessions and API keys (revoked at the external key manager too, first: if it cannot be reached, the answer is a 503 and nothing is deleted). Takes the account's password; a wrong one is a 401. The session cookie is cleared. Counted against no quota.",
        body: DeleteAccountSchema,
        responses: { 204: c.noBody(), ...bodyProblems, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
    },
    keys: {
      list: {
        method: 'GET',
        path: apiPaths.keys,
        summary: 'List your API keys',
        description:
          'Every API key of the signed-in account, newest first, revoked and expired ones included. Never the keys themselves. Takes a session; an API key cannot list keys (403). Counted against no quota: the owner needs the ids to revoke keys.',
        responses: { 200: ApiKeyListResponseSchema, 401: problem, 403: problem, ...databaseRoute },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
      create: {
        method: 'POST',
        path: apiPaths.keys,
        summary: 'Create an API key',
        description: `Issues an API key. The response is the only time the key itself is shown. At most ${limits.maxActiveKeysPerUser} keys per account may be active (neither revoked nor expired). Takes a session; an API key cannot create keys (403).`,
        body: CreateApiKeySchema,
        responses: {
          201: CreatedApiKeyResponseSchema,
          ...bodyProblems,
          401: problem,
          403: problem,
          409: problem,
          ...databaseRoute,
        },
        metadata: metadata({ auth: 'session' }),
      },
      revoke: {
        method: 'DELETE',
        path: apiPaths.key,
        summary: 'Revoke an API key',
        description:
          "Revokes one of your API keys: it stops working everywhere within 5 seconds. Revoking a revoked key answers the same. Another account's key is a 404.",
        pathParams: ApiKeyIdParamsSchema,
        body: c.noBody(),
        responses: {
          200: ApiKeyResponseSchema,
          ...bodyProblems,
          401: problem,
          403: problem,
          404: problem,
          ...databaseRoute,
        },
        metadata: metadata({ auth: 'session', quota: 'none' }),
      },
    },
    openapi: {
      document: {
        method: 'GET',
        path: apiPaths.openapi,
        summary: 'This API as an OpenAPI 3 document',
        responses: { 200: OpenApiDocumentSchema, ...everyRoute },
        metadata: metadata({ auth: 'none', publicRead: true }),
      },
    },
    docs: {
      reference: {
        method: 'GET',
        path: apiPaths.docs,
        summary: 'Interactive API reference (HTML)',
        responses: { 200: c.otherResponse({ contentType: 'text/html', body: htmlPage }), ...everyRoute },
        metadata: metadata({ auth: 'none' }),
      },
      problem: {
        method: 'GET',
        path: apiPaths.problem,
        summary: 'Explain a problem type (HTML)',
        description: `The page a problem \`type\` URI points to. Kinds: ${problemKindNames.join(', ')}.`,
        // Any kind is looked up (an unknown one is a 404 page); the document lists the ones there are.
        pathParams: z.object({ kind: z.string().max(64) }),
        responses: {
          200: c.otherResponse({ contentType: 'text/html', body: htmlPage }),
          400: problem,
          404: problem,
          ...everyRoute,
        },
        metadata: metadata({ auth: 'none', parameters: { kind: { schema: ProblemKindSchema } } }),
      },
    },
    probes: {
      live: {
        method: 'GET',
        path: apiPaths.live,
        summary: 'Liveness probe',
        description: 'Answers while the process runs. No data, no authentication.',
        // Never rate limited: an orchestrator polling the probes must never be told to back off.
        responses: { 200: z.literal('OK'), 500: problem },
        metadata: metadata({ auth: 'none', quota: 'none' }),
      },
      ready: {
        method: 'GET',
        path: apiPaths.ready,
        summary: 'Readiness probe',
        description: 'Answers 200 when the database answers, 503 otherwise. No data, no authentication.',
        responses: { 200: z.literal('OK'), 500: problem, 503: problem },
        metadata: metadata({ auth: 'none', quota: 'none' }),
      },
    },
  },
  { strictStatusCodes: true },
);

export type Contract = typeof contract;
