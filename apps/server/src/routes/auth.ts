import { limits, type ActiveSession, type AuthResponse, type contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Request, Response } from 'express';
import { userJson, type AccountService, type SignedIn } from '../auth/accounts.js';
import type { PasswordResets } from '../auth/password-resets.js';
import { bearerChallenge, unauthorized } from '../auth/verify-credential.js';
import type { SessionCookie } from '../auth/session-cookie.js';
import { sessionExpiresAt, userAgentOf, type SessionService } from '../auth/sessions.js';
import type { Clock } from '../kernel/clock.js';
import type { Config } from '../config.js';
import { sessionCaller } from '../http/request-context.js';
import { fieldProblem, HttpProblem } from '../kernel/http-problem.js';
import type { SignInThrottle } from '../rate-limit/sign-in-throttle.js';
import type { AccountStore, SessionRecord, UserWithPassword } from '../db/interface.js';

export interface AuthRouteDeps {
  config: Config;
  accounts: AccountService;
  users: AccountStore;
  sessions: SessionService;
  resets: PasswordResets;
  throttle: SignInThrottle;
  cookie: SessionCookie;
  clock: Clock;
}

const accountMessages = {
  signupClosed: 'Signing up is closed on this service. Ask its operator for an account.',
  emailTaken: 'An account with this email already exists. Sign in instead.',
  badCredentials: 'The email or password is not right.',
  wrongPassword: 'The password is not right.',
  accountGone: 'The account of this session no longer exists.',
  invalidResetToken:
    'is not a valid reset token: it is unknown, was used already, was replaced by a newer one or has expired. Ask for a new link.',
} as const;

/** The session goes to the browser as a cookie and to every other client in the body. */
function signedIn(deps: AuthRouteDeps, res: Response, { user, token, session }: SignedIn): AuthResponse {
  const expiresAt = sessionExpiresAt(session);
  res.append('set-cookie', deps.cookie.setting(token, expiresAt, deps.clock.now()));
  res.setHeader('cache-control', 'no-store');
  return { success: true, data: { user: userJson(user), session: { token, expires_at: expiresAt } } };
}

function sessionJson(session: SessionRecord, current: SessionRecord): ActiveSession {
  return {
    id: session.id,
    created_at: session.createdAt,
    last_used_at: session.lastSeenAt,
    expires_at: sessionExpiresAt(session),
    user_agent: session.userAgent,
    current: session.id === current.id,
  };
}

/** The signed-in caller's account with its password hash; a 401 when it went away while the session lived. */
async function callerAccount(deps: AuthRouteDeps, req: Request): Promise<UserWithPassword> {
  const user = await deps.accounts.findUser(sessionCaller(req).userId);
  if (!user) throw unauthorized(accountMessages.accountGone, [bearerChallenge]);
  return user;
}

/**
 * A signed-in user proves the password (to change it, or delete the account): a wrong one is a 401, and counts
 * against the account's sign-in throttle like a failed sign-in, so a stolen session cannot guess it faster.
 */
async function provePassword(deps: AuthRouteDeps, user: UserWithPassword, password: string): Promise<void> {
  const decision = await deps.throttle.admit(user.email);
  if (!decision.go) throw deps.throttle.refusal(decision);
  if (!(await deps.accounts.checkPassword(user, password))) {
    await deps.throttle.failed(user.email, decision);
    throw unauthorized(accountMessages.wrongPassword, [bearerChallenge]);
  }
  await deps.throttle.clear(user.email);
}

/** A new password the policy refuses (common, a repeat, the email): a 400 naming the field. */
function refuseNewPassword(deps: AuthRouteDeps, pointer: string, password: string, email: string): void {
  const problem = deps.accounts.newPasswordProblem(password, email);
  if (problem !== undefined) throw fieldProblem(pointer, problem);
}

export function authRoutes(deps: AuthRouteDeps): {
  signup: AppRouteImplementation<typeof contract.auth.signup>;
  login: AppRouteImplementation<typeof contract.auth.login>;
  logout: AppRouteImplementation<typeof contract.auth.logout>;
  session: AppRouteImplementation<typeof contract.auth.session>;
  changePassword: AppRouteImplementation<typeof contract.auth.changePassword>;
  listSessions: AppRouteImplementation<typeof contract.auth.listSessions>;
  revokeSession: AppRouteImplementation<typeof contract.auth.revokeSession>;
  revokeOtherSessions: AppRouteImplementation<typeof contract.auth.revokeOtherSessions>;
  requestPasswordReset: AppRouteImplementation<typeof contract.auth.requestPasswordReset>;
  confirmPasswordReset: AppRouteImplementation<typeof contract.auth.confirmPasswordReset>;
  deleteAccount: AppRouteImplementation<typeof contract.auth.deleteAccount>;
} {
  return {
    signup: async ({ body, req, res }) => {
      if (!deps.config.allowSignup) throw new HttpProblem('forbidden', accountMessages.signupClosed);
      refuseNewPassword(deps, '/password', body.password, body.email);
      const result = await deps.accounts.signup(body.email, body.password, userAgentOf(req.headers['user-agent']));
      if (result === 'email-taken') throw new HttpProblem('conflict', accountMessages.emailTaken);
      return { status: 201, body: signedIn(deps, res, result) };
    },

    login: async ({ body, req, res }) => {
      // The account's throttle first (SPEC §3.7): known or unknown email alike, so a 429 reveals nothing.
      const decision = await deps.throttle.admit(body.email);
      if (!decision.go) throw deps.throttle.refusal(decision);
      const result = await deps.accounts.login(body.email, body.password, userAgentOf(req.headers['user-agent']));
      // One answer for an unknown email and a wrong password, in the same time (see AccountService.login).
      if (!result) {
        await deps.throttle.failed(body.email, decision);
        throw unauthorized(accountMessages.badCredentials, [bearerChallenge]);
      }
      await deps.throttle.clear(body.email);
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
      if (!user) throw unauthorized(accountMessages.accountGone, [bearerChallenge]);
      return {
        status: 200,
        body: {
          success: true,
          data: { user: userJson(user), session: { expires_at: sessionExpiresAt(caller.session) } },
        },
      };
    },

    changePassword: async ({ body, req }) => {
      const caller = sessionCaller(req);
      const user = await callerAccount(deps, req);
      refuseNewPassword(deps, '/new_password', body.new_password, user.email);
      await provePassword(deps, user, body.current_password);
      // The new password and the end of every other session, in one transaction.
      if (!(await deps.accounts.setPassword(user.id, body.new_password, caller.session.id))) {
        throw unauthorized(accountMessages.accountGone, [bearerChallenge]);
      }
      return { status: 204, body: undefined };
    },

    listSessions: async ({ req }) => {
      const caller = sessionCaller(req);
      const sessions = await deps.sessions.list(caller.userId);
      return {
        status: 200,
        body: { success: true, data: { sessions: sessions.map((session) => sessionJson(session, caller.session)) } },
      };
    },

    revokeSession: async ({ params, req, res }) => {
      const caller = sessionCaller(req);
      // Another user's session is a 404 like one that does not exist: its existence is not ours to tell.
      if (!(await deps.sessions.endOne(caller.userId, params.id))) {
        throw new HttpProblem('not-found', `You have no session with the id ${params.id}.`);
      }
      if (params.id === caller.session.id) res.append('set-cookie', deps.cookie.clearing(deps.clock.now()));
      return { status: 204, body: undefined };
    },

    revokeOtherSessions: async ({ req }) => {
      const caller = sessionCaller(req);
      await deps.sessions.endOthers(caller.userId, caller.session.id);
      return { status: 204, body: undefined };
    },

    requestPasswordReset: async ({ body }) => {
      // Answered before anything is looked up: the same answer, in the same time, for every email (a 503 for
      // every email alike while the database does not answer).
      await deps.resets.request(body.email);
      return {
        status: 202,
        body: { success: true, data: { expires_in_minutes: limits.passwordResetLifetimeMinutes } },
      };
    },

    confirmPasswordReset: async ({ body }) => {
      const result = await deps.resets.confirm(body.token, body.new_password);
      if (!result.reset) {
        throw result.invalid === 'token'
          ? fieldProblem('/token', accountMessages.invalidResetToken)
          : fieldProblem('/new_password', result.problem);
      }
      // A reset lifts the account's sign-in throttle (SPEC §3.7).
      await deps.throttle.clear(result.user.email);
      return { status: 204, body: undefined };
    },

    deleteAccount: async ({ body, req, res }) => {
      const user = await callerAccount(deps, req);
      await provePassword(deps, user, body.password);
      await deps.accounts.deleteAccount(user.id);
      res.append('set-cookie', deps.cookie.clearing(deps.clock.now()));
      return { status: 204, body: undefined };
    },
  };
}
