import type { AuthResponse, contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import { userJson, type AccountService, type SignedIn } from '../auth/accounts.js';
import { bearerChallenge, unauthorized } from '../auth/verify-credential.js';
import type { SessionCookie } from '../auth/session-cookie.js';
import { sessionExpiresAt, type SessionService } from '../auth/sessions.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { sessionCaller } from '../http/request-context.js';
import { HttpProblem } from '../problems.js';
import type { AccountStore } from '../storage/interface.js';

export interface AuthRouteDeps {
  config: Config;
  accounts: AccountService;
  users: AccountStore;
  sessions: SessionService;
  cookie: SessionCookie;
  clock: Clock;
}

const accountMessages = {
  signupClosed: 'Signing up is closed on this service. Ask its operator for an account.',
  emailTaken: 'An account with this email already exists. Sign in instead.',
  badCredentials: 'The email or password is not right.',
} as const;

/** The session goes to the browser as a cookie and to every other client in the body. */
function signedIn(deps: AuthRouteDeps, res: Response, { user, token, session }: SignedIn): AuthResponse {
  const expiresAt = sessionExpiresAt(session);
  res.append('set-cookie', deps.cookie.setting(token, expiresAt, deps.clock.now()));
  res.setHeader('cache-control', 'no-store');
  return { success: true, data: { user: userJson(user), session: { token, expires_at: expiresAt } } };
}

export function authRoutes(deps: AuthRouteDeps): {
  signup: AppRouteImplementation<typeof contract.auth.signup>;
  login: AppRouteImplementation<typeof contract.auth.login>;
  logout: AppRouteImplementation<typeof contract.auth.logout>;
  session: AppRouteImplementation<typeof contract.auth.session>;
} {
  return {
    signup: async ({ body, res }) => {
      if (!deps.config.allowSignup) throw new HttpProblem('forbidden', accountMessages.signupClosed);
      const result = await deps.accounts.signup(body.email, body.password);
      if (result === 'email-taken') throw new HttpProblem('conflict', accountMessages.emailTaken);
      return { status: 201, body: signedIn(deps, res, result) };
    },

    login: async ({ body, res }) => {
      const result = await deps.accounts.login(body.email, body.password);
      // One answer for an unknown email and a wrong password, in the same time (see AccountService.login).
      if (!result) throw unauthorized(accountMessages.badCredentials, [bearerChallenge]);
      return { status: 200, body: signedIn(deps, res, result) };
    },

    logout: async ({ req, res }) => {
      await deps.sessions.end(sessionCaller(req).session);
      res.append('set-cookie', deps.cookie.clearing(deps.clock.now()));
      return { status: 204, body: undefined };
    },

    session: async ({ req }) => {
      const caller = sessionCaller(req);
      const user = await deps.users.findUserById(caller.userId);
      // The account went away while the session lived (deleted by an operator): the session is over too.
      if (!user) throw unauthorized('The account of this session no longer exists.', [bearerChallenge]);
      return {
        status: 200,
        body: {
          success: true,
          data: { user: userJson(user), session: { expires_at: sessionExpiresAt(caller.session) } },
        },
      };
    },
  };
}
