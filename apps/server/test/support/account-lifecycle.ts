import { ActiveSessionListResponseSchema, AuthResponseSchema, type ActiveSession } from '@releases/contract';
import { expect } from 'vitest';
import { startTestServer, type SignedUp, type TestServer } from './harness.js';
import { resetLinkOf, startInbox, type Inbox } from './smtp-inbox.js';

/**
 * The account's whole lifecycle (SPEC §3.7) over HTTP, on both backends: changing the password, the sessions
 * (list, end one, end the others), resetting a forgotten password by mail (real SMTP, the link followed), and
 * deleting the account. Its cases live by intent in routes/auth.happy, auth.errors and auth.security; this is
 * the server and the helpers they share.
 */

export const mailFrom = 'Releases <no-reply@releases.test>';
/** A clock the expiry tests move forward. */
export const clock = { offset: 0, now: () => Date.now() + clock.offset };

/** A server with a real SMTP inbox behind it, on the clock above. */
export async function startLifecycleServer(
  database: 'sqlite' | 'postgres',
): Promise<{ server: TestServer; inbox: Inbox }> {
  const inbox = await startInbox();
  const server = await startTestServer({
    database,
    releases: 'none',
    clock,
    config: { smtp: { url: inbox.url, from: mailFrom } },
  });
  return { server, inbox };
}

export interface LifecycleHelpers {
  /** The status `GET /api/v1/auth/session` answers this session token with. */
  status: (token: string) => Promise<number>;
  /** Signs in: the new session's token, or the status of the refusal. */
  login: (email: string, password: string, userAgent?: string) => Promise<string | number>;
  /** Signs in, and fails the test unless it works. */
  signedIn: (email: string, password: string, userAgent?: string) => Promise<string>;
  /** The live sessions of the account, as this session lists them. */
  sessionsOf: (token: string) => Promise<ActiveSession[]>;
  requestReset: (email: string) => Promise<Response>;
  confirmReset: (token: string, newPassword: string) => Promise<Response>;
  /** Asks for a reset of `account` and follows the link in the mail it gets. */
  resetToken: (account: SignedUp) => Promise<string>;
}

/** The helpers, reading the server and the inbox a suite's `beforeAll` started. */
export function lifecycleHelpers(server: () => TestServer, inbox: () => Inbox): LifecycleHelpers {
  const status = (token: string) =>
    server()
      .get('/api/v1/auth/session', { headers: { authorization: `Bearer ${token}` } })
      .then((r) => r.status);
  const login = async (email: string, password: string, userAgent = 'test-client/1.0') => {
    const response = await server().send(
      'POST',
      '/api/v1/auth/login',
      { email, password },
      { headers: { 'user-agent': userAgent } },
    );
    return response.status === 200
      ? AuthResponseSchema.parse(await response.json()).data.session.token
      : response.status;
  };
  const signedIn = async (email: string, password: string, userAgent?: string): Promise<string> => {
    const token = await login(email, password, userAgent);
    if (typeof token !== 'string') throw new Error(`login failed: ${token}`);
    return token;
  };
  const sessionsOf = async (token: string): Promise<ActiveSession[]> => {
    const response = await server().get('/api/v1/auth/sessions', { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return ActiveSessionListResponseSchema.parse(await response.json()).data.sessions;
  };
  const requestReset = (email: string) => server().send('POST', '/api/v1/auth/password-reset', { email });
  const confirmReset = (token: string, newPassword: string) =>
    server().send('POST', '/api/v1/auth/password-reset/confirm', { token, new_password: newPassword });
  const resetToken = async (account: SignedUp): Promise<string> => {
    expect((await requestReset(account.email)).status).toBe(202);
    return resetLinkOf(await inbox().next(account.email)).token;
  };
  return { status, login, signedIn, sessionsOf, requestReset, confirmReset, resetToken };
}
