import { contract } from '@releases/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, ReleasesClient, ReleasesError, ServiceUnavailableError } from '../src/index.js';
import { operations } from '../src/operations.js';
import { scriptedServer, sendJson, sendProblem, type ScriptedServer } from './scripted-server.js';

/** `client.auth` and `client.keys` on the wire (issue 7 #5), against a scripted server. */
let api: ScriptedServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const token = 'T'.repeat(43);
const apiKey = {
  id: 'key_1',
  name: 'ci',
  start: 'rls_AbCd1234',
  created_at: '2026-11-22T08:00:00.000Z',
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
};
const user = { id: 'usr_1', email: 'a@example.com', created_at: '2026-11-22T08:00:00.000Z' };
const session = { token, expires_at: '2026-11-29T08:00:00.000Z' };

/** Answers each route with a body of its shape. */
async function accountsServer(): Promise<ScriptedServer> {
  api = await scriptedServer((request, res) => {
    const route = `${request.method} ${request.url}`;
    if (route === 'POST /api/v1/auth/signup') return sendJson(res, 201, { success: true, data: { user, session } });
    if (route === 'POST /api/v1/auth/login') return sendJson(res, 200, { success: true, data: { user, session } });
    if (route === 'POST /api/v1/auth/logout') return res.writeHead(204).end();
    if (route === 'GET /api/v1/auth/session')
      return sendJson(res, 200, { success: true, data: { user, session: { expires_at: session.expires_at } } });
    if (route === 'GET /api/v1/keys') return sendJson(res, 200, { success: true, data: { keys: [apiKey] } });
    if (route === 'POST /api/v1/keys')
      return sendJson(res, 201, { success: true, data: { ...apiKey, key: 'rls_new' } });
    if (route === 'DELETE /api/v1/keys/key_1')
      return sendJson(res, 200, { success: true, data: { ...apiKey, revoked_at: '2026-11-22T09:00:00.000Z' } });
    if (route === 'GET /api/v1/health') return sendJson(res, 200, 'OK');
    if (route.startsWith('GET /api/v1/release')) {
      return sendJson(res, 200, {
        success: true,
        data: { releases: [], pagination: '', generated_at: user.created_at },
      });
    }
    sendProblem(res, 404, 'not-found');
  });
  return api;
}

describe('the SDK routes match the contract', () => {
  it('every operation has the contract route method, path and credential', () => {
    const routes = {
      'health.check': contract.health.check,
      'releases.list': contract.release.list,
      'releases.get': contract.release.get,
      'facets.list': contract.facets.list,
      'auth.signup': contract.auth.signup,
      'auth.login': contract.auth.login,
      'auth.logout': contract.auth.logout,
      'auth.session': contract.auth.session,
      'auth.changePassword': contract.auth.changePassword,
      'auth.listSessions': contract.auth.listSessions,
      'auth.revokeSession': contract.auth.revokeSession,
      'auth.revokeOtherSessions': contract.auth.revokeOtherSessions,
      'auth.requestPasswordReset': contract.auth.requestPasswordReset,
      'auth.confirmPasswordReset': contract.auth.confirmPasswordReset,
      'auth.deleteAccount': contract.auth.deleteAccount,
      'keys.list': contract.keys.list,
      'keys.create': contract.keys.create,
      'keys.revoke': contract.keys.revoke,
    } as const;
    expect(Object.keys(operations).sort()).toEqual(Object.keys(routes).sort());
    for (const [name, route] of Object.entries(routes)) {
      const operation = operations[name as keyof typeof operations];
      expect({ method: operation.method, path: operation.path, auth: operation.auth }, name).toEqual({
        method: route.method,
        path: route.path,
        auth: route.metadata.auth,
      });
    }
  });
});

describe('client.auth and client.keys', () => {
  it('call their routes and resolve to the data', async () => {
    const server = await accountsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    expect(await client.auth.signup({ email: 'a@example.com', password: 'long enough password' })).toEqual({
      user,
      session,
    });
    expect(await client.auth.login({ email: 'a@example.com', password: 'long enough password' })).toEqual({
      user,
      session,
    });
    const me = client.withSession(token);
    expect(await me.auth.session()).toEqual({ user, session: { expires_at: session.expires_at } });
    expect(await me.keys.list()).toEqual({ keys: [apiKey] });
    expect(await me.keys.create({ name: 'ci', expires_in_days: 30 })).toEqual({ ...apiKey, key: 'rls_new' });
    expect((await me.keys.revoke('key_1')).revoked_at).toBe('2026-11-22T09:00:00.000Z');
    expect(await me.auth.logout()).toBeUndefined();
    expect(server.requests.map((request) => `${request.method} ${request.url} ${request.body}`)).toEqual([
      'POST /api/v1/auth/signup {"email":"a@example.com","password":"long enough password"}',
      'POST /api/v1/auth/login {"email":"a@example.com","password":"long enough password"}',
      'GET /api/v1/auth/session ',
      'GET /api/v1/keys ',
      'POST /api/v1/keys {"name":"ci","expires_in_days":30}',
      'DELETE /api/v1/keys/key_1 ',
      'POST /api/v1/auth/logout ',
    ]);
  });

  it('send each route only the credential it takes: a key, a session, or nothing', async () => {
    const server = await accountsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, apiKey: 'rls_key', sessionToken: token });
    await client.auth.login({ email: 'a@example.com', password: 'long enough password' });
    await client.health.check();
    await client.keys.list();
    await client.releases.list();
    await client.request({ method: 'GET', path: '/api/v1/release' });
    const sent = server.requests.map((request) => [
      request.url,
      request.headers['x-api-key'] ?? null,
      request.headers.authorization ?? null,
    ]);
    expect(sent).toEqual([
      ['/api/v1/auth/login', null, null],
      ['/api/v1/health', 'rls_key', null],
      ['/api/v1/keys', null, `Bearer ${token}`],
      ['/api/v1/release', 'rls_key', null], // the key where both are accepted, as the server would choose
      ['/api/v1/release', 'rls_key', null],
    ]);
    await new ReleasesClient({ baseUrl: server.baseUrl, sessionToken: token }).releases.list();
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('withSession keeps every other option and checks the token', async () => {
    const server = await accountsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, headers: { 'x-app': 'web' }, timeoutMs: 1234 });
    const me = client.withSession(token);
    expect(me).not.toBe(client);
    expect([me.baseUrl, me.timeoutMs]).toEqual([server.baseUrl, 1234]);
    await me.keys.list();
    expect(server.requests[0]!.headers['x-app']).toBe('web');
    expect(() => client.withSession('bad\ntoken')).toThrow(ReleasesError);
  });

  it('refuse an empty key id before any request, and path-encode it', async () => {
    const server = await accountsServer();
    const me = new ReleasesClient({ baseUrl: server.baseUrl, sessionToken: token });
    await expect(me.keys.revoke('')).rejects.toThrow(/id/);
    expect(server.requests).toHaveLength(0);
    await me.keys.revoke('key_1/../x').catch(() => undefined);
    expect(server.requests[0]!.url).toBe('/api/v1/keys/key_1%2F..%2Fx');
  });

  it('a 409 is a ConflictError', async () => {
    api = await scriptedServer((_request, res) => sendProblem(res, 409, 'conflict'));
    const error = await new ReleasesClient({ baseUrl: api.baseUrl }).auth
      .signup({ email: 'a@example.com', password: 'long enough password' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).status).toBe(409);
  });
});

describe('retries of mutations', () => {
  const fast = { retryBackoff: { baseDelayMs: 1, maxDelayMs: 2 }, maxRetries: 2 };

  it.each([
    ['auth.signup', (c: ReleasesClient) => c.auth.signup({ email: 'a@example.com', password: 'long enough password' })],
    ['auth.login', (c: ReleasesClient) => c.auth.login({ email: 'a@example.com', password: 'long enough password' })],
    ['auth.logout', (c: ReleasesClient) => c.auth.logout()],
    ['keys.create', (c: ReleasesClient) => c.keys.create({ name: 'ci' })],
  ])('%s (POST) is never retried', async (_name, call) => {
    api = await scriptedServer((_request, res) => sendProblem(res, 503, 'service-unavailable'));
    await expect(
      call(new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: token, ...fast })),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(api.requests).toHaveLength(1);
  });

  it('keys.revoke (DELETE, idempotent: revoking twice answers the same) is retried', async () => {
    api = await scriptedServer((_request, res, attempt) =>
      attempt < 3 ? sendProblem(res, 503, 'service-unavailable') : sendJson(res, 200, { success: true, data: apiKey }),
    );
    const me = new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: token, ...fast });
    expect(await me.keys.revoke('key_1')).toEqual(apiKey);
    expect(api.requests).toHaveLength(3);
  });
});

describe('the account lifecycle calls (issue 18)', () => {
  const listed = {
    id: 'ses_1',
    created_at: '2026-11-22T08:00:00.000Z',
    last_used_at: '2026-11-22T08:00:00.000Z',
    expires_at: '2026-11-29T08:00:00.000Z',
    user_agent: 'curl/8.5.0',
    current: true,
  };

  it('call their routes with their bodies and the credential each takes, and resolve to the data', async () => {
    api = await scriptedServer((request, res) => {
      const route = `${request.method} ${request.url}`;
      if (route === 'GET /api/v1/auth/sessions')
        return sendJson(res, 200, { success: true, data: { sessions: [listed] } });
      if (route === 'POST /api/v1/auth/password-reset')
        return sendJson(res, 202, { success: true, data: { expires_in_minutes: 30 } });
      res.writeHead(204).end();
    });
    const client = new ReleasesClient({ baseUrl: api.baseUrl, apiKey: 'rls_key' });
    const me = client.withSession(token);
    expect(
      await me.auth.changePassword({ current_password: 'old pass phrase', new_password: 'new pass phrase' }),
    ).toBeUndefined();
    expect(await me.auth.sessions.list()).toEqual({ sessions: [listed] });
    expect(await me.auth.sessions.revoke('ses_1')).toBeUndefined();
    expect(await me.auth.sessions.revokeOthers()).toBeUndefined();
    expect(await client.auth.requestPasswordReset({ email: 'a@example.com' })).toEqual({ expires_in_minutes: 30 });
    expect(
      await client.auth.confirmPasswordReset({ token: 'T'.repeat(43), new_password: 'new pass phrase' }),
    ).toBeUndefined();
    expect(await me.auth.deleteAccount({ password: 'new pass phrase' })).toBeUndefined();
    expect(
      api.requests.map((request) => [
        `${request.method} ${request.url} ${request.body}`,
        request.headers.authorization ?? null,
        request.headers['x-api-key'] ?? null,
      ]),
    ).toEqual([
      [
        'POST /api/v1/auth/password {"current_password":"old pass phrase","new_password":"new pass phrase"}',
        `Bearer ${token}`,
        null,
      ],
      ['GET /api/v1/auth/sessions ', `Bearer ${token}`, null],
      ['DELETE /api/v1/auth/sessions/ses_1 ', `Bearer ${token}`, null],
      ['DELETE /api/v1/auth/sessions ', `Bearer ${token}`, null],
      ['POST /api/v1/auth/password-reset {"email":"a@example.com"}', null, null],
      [
        `POST /api/v1/auth/password-reset/confirm {"token":"${'T'.repeat(43)}","new_password":"new pass phrase"}`,
        null,
        null,
      ],
      ['DELETE /api/v1/auth/account {"password":"new pass phrase"}', `Bearer ${token}`, null],
    ]);
  });

  it('refuse an empty session id before any request, and path-encode it', async () => {
    api = await scriptedServer((_request, res) => res.writeHead(204).end());
    const me = new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: token });
    await expect(me.auth.sessions.revoke('')).rejects.toThrow(/session id/);
    expect(api.requests).toHaveLength(0);
    await me.auth.sessions.revoke('ses_1/../x');
    expect(api.requests[0]!.url).toBe('/api/v1/auth/sessions/ses_1%2F..%2Fx');
  });

  it('deleteAccount is never retried (a repeat would find no session), ending sessions is', async () => {
    const fast = { retryBackoff: { baseDelayMs: 1, maxDelayMs: 2 }, maxRetries: 2 };
    api = await scriptedServer((_request, res) => sendProblem(res, 503, 'service-unavailable'));
    const me = new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: token, ...fast });
    await expect(me.auth.deleteAccount({ password: 'pass phrase' })).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(api.requests).toHaveLength(1);
    for (const call of [
      () => me.auth.changePassword({ current_password: 'a', new_password: 'b' }),
      () => me.auth.requestPasswordReset({ email: 'a@example.com' }),
      () => me.auth.confirmPasswordReset({ token: 'x', new_password: 'y' }),
    ]) {
      api.requests.length = 0;
      await expect(call()).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(api.requests).toHaveLength(1);
    }
    api.requests.length = 0;
    await expect(me.auth.sessions.revokeOthers()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(api.requests).toHaveLength(3);
  });
});
