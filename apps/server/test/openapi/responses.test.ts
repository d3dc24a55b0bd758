import { createHash } from 'node:crypto';
import { apiPaths, headerNames, sessionCookieNames } from '@releases/contract';
import type { AppRoute } from '@ts-rest/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/route-table.js';

const contractRoutes = () => new RouteTable().entries.map((entry) => entry.route);
import { sampleReleases, startTestServer, type TestServer } from '../support/harness.js';
import {
  declaredHeaders,
  operationOf,
  responseOf,
  servedDocument,
  type OpenAPIObject,
  type SchemaObject,
} from '../support/openapi-document.js';

/**
 * The document against the server's real answers. Every route is called the ways a client can get it wrong
 * or right (no credential, a bad one, the wrong kind, bad bodies, a spent quota, a database that is down,
 * RELEASES_AUTH=required), and every status and API header that comes back must be declared for that
 * operation. For 401, 429 and 503 the reverse holds too: declared only where they occur.
 */

/** The response headers this API defines (standard ones such as content-type are not the document's business). */
const apiHeaders = [
  headerNames.requestId,
  headerNames.rateLimit,
  headerNames.rateLimitPolicy,
  headerNames.retryAfter,
  headerNames.link,
  'www-authenticate',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'set-cookie',
];

interface Observation {
  route: AppRoute;
  status: number;
  headers: Headers;
  how: string;
}

const observations: Observation[] = [];
let document: OpenAPIObject;

const routes = contractRoutes();
const routeOf = (method: string, path: string): AppRoute =>
  routes.find((route) => route.method === method && route.path === path)!;
const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const crossSite = { origin: 'https://elsewhere.test', 'sec-fetch-site': 'cross-site' };

let password = 0;
const newCredentials = () => ({ email: `user${++password}@example.test`, password: `correct horse ${password}` });

interface Call {
  /** Replaces the route's `:param`s; a harmless value of the right shape by default. */
  params?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  how: string;
}

const defaultParams: Record<string, Record<string, string>> = {
  [apiPaths.release]: { id: 'rel_missing' },
  [apiPaths.key]: { id: 'key_missing' },
  [apiPaths.sessionById]: { id: 'ses_missing' },
  [apiPaths.problem]: { kind: 'not-found' },
};

async function call(server: TestServer, route: AppRoute, request: Call): Promise<Response> {
  const params = { ...defaultParams[route.path], ...request.params };
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? 'x'));
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await server.get(`${path}${request.query ?? ''}`, {
    method: route.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  observations.push({ route, status: response.status, headers: response.headers, how: request.how });
  await response.arrayBuffer();
  return response;
}

/** A call that must answer `status` (the lifecycle's own calls, which later ones depend on). */
async function expectCall(status: number, server: TestServer, route: AppRoute, request: Call): Promise<void> {
  expect((await call(server, route, request)).status, request.how).toBe(status);
}

async function signUp(server: TestServer, credentials = newCredentials()): Promise<string> {
  const response = await server.get(apiPaths.signup, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { session: { token: string } } }).data.session.token;
}

/** A well-formed reset token that was never issued. */
const unknownResetToken = 'u'.repeat(43);

/** A body each body-taking route accepts. */
function validBody(route: AppRoute): string | undefined {
  if (!bodyMethods.has(route.method)) return undefined;
  switch (route.path) {
    case apiPaths.signup:
    case apiPaths.login:
      return JSON.stringify(newCredentials());
    case apiPaths.keys:
      return JSON.stringify({ name: 'probe', expires_in_days: 30 });
    case apiPaths.password:
      return JSON.stringify({ current_password: 'not the password', new_password: 'a new pass phrase' });
    case apiPaths.passwordReset:
      return JSON.stringify({ email: newCredentials().email });
    case apiPaths.passwordResetConfirm:
      return JSON.stringify({ token: unknownResetToken, new_password: 'a new pass phrase' });
    case apiPaths.account:
      return JSON.stringify({ password: 'not the password' });
    default:
      return undefined;
  }
}

/** The ways every route is called on a server that works. */
async function callEveryWay(server: TestServer): Promise<void> {
  const apiKey = (await server.createKey()).key;
  const token = await signUp(server);
  const bearer = { authorization: `Bearer ${token}` };
  for (const route of routes) {
    // Signing out (and ending the current session) ends the session it is called with: those get sessions of
    // their own.
    const session =
      route.path === apiPaths.logout || route.path === apiPaths.sessionById
        ? async () => ({ authorization: `Bearer ${await signUp(server)}` })
        : async () => bearer;
    await call(server, route, { how: 'anonymous, from another origin', headers: { origin: 'https://elsewhere.test' } });
    await call(server, route, { how: 'malformed API key', headers: { [headerNames.apiKey]: 'rls_nope' } });
    await call(server, route, { how: 'valid API key', headers: { [headerNames.apiKey]: apiKey } });
    await call(server, route, { how: 'malformed bearer', headers: { authorization: 'Bearer nope' } });
    await call(server, route, { how: 'session', headers: await session() });
    if (!bodyMethods.has(route.method)) continue;
    await call(server, route, {
      how: 'text body',
      headers: { ...(await session()), 'content-type': 'text/plain' },
      body: 'x',
    });
    await call(server, route, {
      how: 'oversized body',
      headers: await session(),
      body: JSON.stringify({ x: 'y'.repeat(20_000) }),
    });
    await call(server, route, { how: 'malformed JSON', headers: await session(), body: '{' });
    await call(server, route, {
      how: 'cross-site cookie session',
      headers: { ...crossSite, cookie: `${sessionCookieNames.plain}=${token}` },
      ...(validBody(route) === undefined ? {} : { body: validBody(route)! }),
    });
    const body = validBody(route);
    if (body !== undefined) await call(server, route, { how: 'valid body', headers: await session(), body });
  }

  // What only some routes can be asked.
  const list = routeOf('GET', apiPaths.releaseList);
  await call(server, list, { how: 'one per page', query: '?limit=1' });
  await call(server, list, { how: 'unknown parameter', query: '?nope=1' });
  await call(server, list, { how: 'bad cursor', query: '?cursor=nope' });
  const release = routeOf('GET', apiPaths.release);
  const [first] = await sampleReleases();
  await call(server, release, { how: 'existing release', params: { id: first!.id } });
  await call(server, release, { how: 'malformed id', params: { id: 'nope' } });
  const signup = routeOf('POST', apiPaths.signup);
  const taken = newCredentials();
  await call(server, signup, { how: 'new account', body: JSON.stringify(taken) });
  await call(server, signup, { how: 'email taken', body: JSON.stringify(taken) });
  const login = routeOf('POST', apiPaths.login);
  await call(server, login, { how: 'sign in', body: JSON.stringify(taken) });
  await call(server, login, { how: 'wrong password', body: JSON.stringify({ ...taken, password: 'wrong password!' }) });
  await call(server, routeOf('POST', apiPaths.logout), {
    how: 'sign out',
    headers: { authorization: `Bearer ${await signUp(server)}` },
  });
  const created = await server.get(apiPaths.keys, {
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'to revoke' }),
  });
  const keyId = ((await created.json()) as { data: { id: string } }).data.id;
  await call(server, routeOf('DELETE', apiPaths.key), {
    how: 'revoke own key',
    params: { id: keyId },
    headers: bearer,
  });
  await call(server, routeOf('GET', apiPaths.problem), { how: 'unknown kind', params: { kind: 'no-such-kind' } });

  // The account's lifecycle, each call the way it succeeds (and the ways only it can fail).
  const owner = newCredentials();
  const ownerToken = await signUp(server, owner);
  const asOwner = { authorization: `Bearer ${ownerToken}` };
  const password = routeOf('POST', apiPaths.password);
  await expectCall(401, server, password, {
    how: 'wrong current password',
    headers: asOwner,
    body: JSON.stringify({ current_password: 'not the password', new_password: 'a new pass phrase' }),
  });
  await expectCall(400, server, password, {
    how: 'a common new password',
    headers: asOwner,
    body: JSON.stringify({ current_password: owner.password, new_password: 'password123' }),
  });
  await expectCall(204, server, password, {
    how: 'change password',
    headers: asOwner,
    body: JSON.stringify({ current_password: owner.password, new_password: 'a new pass phrase' }),
  });
  owner.password = 'a new pass phrase';
  await expectCall(200, server, routeOf('GET', apiPaths.sessions), { how: 'list sessions', headers: asOwner });
  const other = await server.send('POST', apiPaths.login, owner);
  const otherToken = ((await other.json()) as { data: { session: { token: string } } }).data.session.token;
  const otherId = (
    (await (await server.get(apiPaths.sessions, { headers: asOwner })).json()) as {
      data: { sessions: Array<{ id: string; current: boolean }> };
    }
  ).data.sessions.find((listed) => !listed.current)!.id;
  const revoke = routeOf('DELETE', apiPaths.sessionById);
  await expectCall(204, server, revoke, { how: 'end another session', params: { id: otherId }, headers: asOwner });
  await expectCall(404, server, revoke, { how: 'a session already ended', params: { id: otherId }, headers: asOwner });
  await expectCall(400, server, revoke, { how: 'malformed session id', params: { id: 'nope' }, headers: asOwner });
  expect(otherToken).not.toBe(ownerToken);
  await expectCall(204, server, routeOf('DELETE', apiPaths.sessions), {
    how: 'end the other sessions',
    headers: asOwner,
  });
  const current = await signUp(server);
  const currentId = (
    (await (await server.get(apiPaths.sessions, { headers: { authorization: `Bearer ${current}` } })).json()) as {
      data: { sessions: Array<{ id: string }> };
    }
  ).data.sessions[0]!.id;
  await expectCall(204, server, revoke, {
    how: 'end the current session',
    params: { id: currentId },
    headers: { authorization: `Bearer ${current}` },
  });
  await expectCall(202, server, routeOf('POST', apiPaths.passwordReset), {
    how: 'ask for a reset',
    body: JSON.stringify({ email: owner.email }),
  });
  await server.services.resets.settled();
  const confirm = routeOf('POST', apiPaths.passwordResetConfirm);
  await expectCall(400, server, confirm, {
    how: 'unknown token',
    body: JSON.stringify({ token: unknownResetToken, new_password: 'a new pass phrase' }),
  });
  await call(server, confirm, {
    how: 'malformed token',
    body: JSON.stringify({ token: 'x', new_password: 'a new pass phrase' }),
  });
  // A token as the mail would carry it (the mail itself is the reset tests' business).
  const resetToken = 'r'.repeat(43);
  const user = (await server.services.storage.accounts.findUserByEmail(owner.email))!;
  await server.services.storage.passwordResets.replace({
    userId: user.id,
    tokenHash: createHash('sha256').update(resetToken).digest('hex'),
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
  await expectCall(204, server, confirm, {
    how: 'reset',
    body: JSON.stringify({ token: resetToken, new_password: 'yet another pass phrase' }),
  });
  owner.password = 'yet another pass phrase';
  const signedIn = await server.send('POST', apiPaths.login, owner);
  const deleter = {
    authorization: `Bearer ${((await signedIn.json()) as { data: { session: { token: string } } }).data.session.token}`,
  };
  const deletion = routeOf('DELETE', apiPaths.account);
  await expectCall(401, server, deletion, {
    how: 'wrong password',
    headers: deleter,
    body: JSON.stringify({ password: 'not it at all' }),
  });
  await expectCall(204, server, deletion, {
    how: 'delete the account',
    headers: deleter,
    body: JSON.stringify({ password: owner.password }),
  });
}

beforeAll(async () => {
  const working = await startTestServer({ releases: (await sampleReleases()).slice(0, 5) });
  try {
    document = await servedDocument(working);
    await callEveryWay(working);
  } finally {
    await working.close();
  }

  // Every route but the probes is rate limited: with a quota of one, the second call of anyone is a 429...
  const limited = await startTestServer({
    releases: 'none',
    config: { rateLimits: { windowMs: 60_000, anonymous: 1, apiKey: 1, session: 1, auth: 1 } },
  });
  try {
    for (const route of routes) {
      for (let i = 0; i < 2; i++) await call(limited, route, { how: `quota of one, call ${i + 1}` });
    }
    // ...and those no quota counts (an owner's sign-out and revocation) still refuse an address that keeps
    // presenting credentials that fail (the failed-credential guard).
    for (const route of routes) {
      for (let i = 0; i < 2; i++) {
        await call(limited, route, { how: `bad session, call ${i + 1}`, headers: { authorization: 'Bearer nope' } });
      }
    }
  } finally {
    await limited.close();
  }

  // The database goes away: whatever needs it answers 503.
  const down = await startTestServer({ releases: 'none' });
  const apiKey = (await down.createKey()).key;
  const token = await signUp(down);
  try {
    await down.services.storage.close();
    for (const route of routes) {
      const body = validBody(route);
      const credential =
        route.path === apiPaths.health ? { [headerNames.apiKey]: apiKey } : { authorization: `Bearer ${token}` };
      await call(down, route, { how: 'database down, anonymous', ...(body === undefined ? {} : { body }) });
      await call(down, route, {
        how: 'database down, with a credential',
        headers: credential,
        ...(body === undefined ? {} : { body }),
      });
    }
  } finally {
    await down.close().catch(() => undefined);
  }

  const required = await startTestServer({ releases: 'none', config: { authMode: 'required' } });
  try {
    for (const route of routes) await call(required, route, { how: 'RELEASES_AUTH=required, anonymous' });
  } finally {
    await required.close();
  }
}, 120_000);

/** Why a header value does not fit its declared schema, or undefined when it does. */
function headerValueProblem(value: string, schema: SchemaObject): string | undefined {
  if (schema.type === 'integer') {
    const n = Number(value);
    if (!/^\d+$/.test(value)) return 'is not an integer';
    if (schema.minimum !== undefined && n < schema.minimum) return `is below ${schema.minimum}`;
    if (schema.maximum !== undefined && n > schema.maximum) return `is above ${schema.maximum}`;
    return undefined;
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return `is longer than ${schema.maxLength}`;
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
    return `does not match ${schema.pattern}`;
  if (schema.enum !== undefined && !(schema.enum as unknown[]).includes(value)) return 'is not one of its values';
  return undefined;
}

const where = (o: Observation) => `${o.route.method} ${o.route.path} → ${o.status} (${o.how})`;

describe('every answer the server gives is in the document', () => {
  it('declares every status each route answers with', () => {
    const undeclared = observations
      .filter((o) => responseOf(operationOf(document, o.route), o.status) === undefined)
      .map(where);
    expect([...new Set(undeclared)]).toEqual([]);
  });

  it('declares every API header a response carries, as it is sent, and sends every header it declares required', () => {
    const problems = new Set<string>();
    for (const o of observations) {
      const response = responseOf(operationOf(document, o.route), o.status);
      if (!response) continue;
      const declared = declaredHeaders(document, response);
      for (const name of apiHeaders) {
        const value = o.headers.get(name);
        if (value === null) continue;
        const header = declared.get(name);
        if (!header) {
          problems.add(`${where(o)}: ${name} is not declared`);
          continue;
        }
        const problem = headerValueProblem(value, header.schema as SchemaObject);
        if (problem) problems.add(`${where(o)}: ${name} ${JSON.stringify(value)} ${problem}`);
      }
      for (const [name, header] of declared) {
        if (header.required && !o.headers.has(name)) problems.add(`${where(o)}: required ${name} was not sent`);
      }
    }
    expect([...problems]).toEqual([]);
  });

  it('declares 401, 429 and 503 exactly where they occur', () => {
    for (const status of [401, 429, 503]) {
      const observed = new Set(observations.filter((o) => o.status === status).map((o) => o.route));
      for (const route of routes) {
        const declared = responseOf(operationOf(document, route), status) !== undefined;
        expect(declared, `${route.method} ${route.path} declares ${status}`).toBe(observed.has(route));
      }
    }
  });

  it('documents the next-page Link of the release list, which the server does send', () => {
    const list = routeOf('GET', apiPaths.releaseList);
    expect(observations.some((o) => o.route === list && o.headers.has(headerNames.link))).toBe(true);
    const ok = responseOf(operationOf(document, list), 200)!;
    expect(declaredHeaders(document, ok).get(headerNames.link)?.description).toMatch(/rel="next"/);
  });
});
