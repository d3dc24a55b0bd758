import { headerNames, unkeyKeyMaxLength, unkeyKeyMinLength, type RouteAuth } from '@releases/contract';
import { HttpProblem } from '../kernel/http-problem.js';
import type { Caller } from './caller.js';
import type { PresentedCredential } from './credentials.js';
import type { KeyFailure, KeyManager, KeyVerification } from '../keys/key-manager.js';
import type { SessionService } from './sessions.js';

/** Challenges sent with a 401, one per scheme the route accepts. */
export const apiKeyChallenge = `ApiKey realm="releases", header="${headerNames.apiKey}"`;
export const bearerChallenge = 'Bearer realm="releases"';

/** The `WWW-Authenticate` challenges of a route: the schemes it accepts. */
export const challengesByAuth: Record<RouteAuth, readonly string[]> = {
  none: [],
  optional: [apiKeyChallenge, bearerChallenge],
  'api-key': [apiKeyChallenge],
  session: [bearerChallenge],
};

export function unauthorized(detail: string, challenges: readonly string[]): HttpProblem {
  return new HttpProblem('unauthorized', detail, { headers: { 'www-authenticate': challenges.join(', ') } });
}

export const authMessages = {
  missingApiKey: `This endpoint needs an API key: send it in the ${headerNames.apiKey} header.`,
  missingCredential: `This endpoint needs a credential: an API key in the ${headerNames.apiKey} header, or a session.`,
  missingSession:
    'This endpoint needs a session: sign in, then send the session cookie or "Authorization: Bearer <session token>".',
  apiKeyOnSessionRoute: 'API keys cannot manage accounts or keys: sign in and use the session instead.',
  invalidSession: 'The session token is invalid or has expired. Sign in again.',
  unknown: 'The API key is not recognised.',
  revoked: 'The API key has been revoked.',
  disabled: 'The API key has been disabled.',
  'bad-checksum': 'The API key does not pass its checksum: it was mistyped or cut short.',
  'rate-limited': 'The API key has reached its rate limit at the key manager.',
  'usage-exceeded': 'The API key has used up its allowance.',
  forbidden: 'The API key is not allowed to call this API.',
} as const;

function malformedKeyMessage(manager: KeyManager['kind']): string {
  return manager === 'local'
    ? 'The API key is malformed: keys are 42 characters, start with rls_ and contain only letters and digits.'
    : `The API key is malformed: keys start with rls_ followed by ${unkeyKeyMinLength} to ${unkeyKeyMaxLength} base58 characters.`;
}

const keyFailureStatus: Record<KeyFailure, 'unauthorized' | 'rate-limited' | 'forbidden'> = {
  malformed: 'unauthorized',
  'bad-checksum': 'unauthorized',
  unknown: 'unauthorized',
  revoked: 'unauthorized',
  expired: 'unauthorized',
  disabled: 'unauthorized',
  'rate-limited': 'rate-limited',
  'usage-exceeded': 'rate-limited',
  forbidden: 'forbidden',
};

/** The answer to a refused key: 401 for a bad key, 429 when its allowance is spent, 403 when it may not call us. */
function keyFailureProblem(
  result: Extract<KeyVerification, { valid: false }>,
  manager: KeyManager['kind'],
  challenges: readonly string[],
): HttpProblem {
  const kind = keyFailureStatus[result.failure];
  const detail =
    result.failure === 'malformed'
      ? malformedKeyMessage(manager)
      : result.failure === 'expired'
        ? `The API key expired at ${result.expiredAt ?? 'an earlier time'}.`
        : authMessages[result.failure];
  if (kind === 'unauthorized') return unauthorized(detail, challenges);
  if (kind === 'rate-limited') {
    const seconds = Math.max(1, Math.ceil(result.retryAfterSeconds ?? 60));
    return new HttpProblem('rate-limited', detail, { headers: { 'retry-after': String(seconds) } });
  }
  return new HttpProblem('forbidden', detail);
}

export interface Authenticator {
  keys: KeyManager;
  sessions: SessionService;
}

/**
 * Verifies a presented credential: who is calling, or the problem to answer with. Lookups happen here and
 * only here (after the failed-credential guard has had its say).
 */
export async function verifyCredential(
  credential: PresentedCredential,
  deps: Authenticator,
  challenges: readonly string[],
): Promise<{ caller: Caller } | { failure: HttpProblem }> {
  switch (credential.kind) {
    case 'none':
      return { caller: { kind: 'anonymous' } };
    case 'malformed':
      return { failure: unauthorized(credential.detail, challenges) };
    case 'api-key': {
      const result = await deps.keys.verify(credential.key);
      return result.valid
        ? { caller: { kind: 'api-key', keyId: result.keyId, ownerId: result.ownerId } }
        : { failure: keyFailureProblem(result, deps.keys.kind, challenges) };
    }
    case 'session': {
      const resumed = await deps.sessions.resume(credential.token);
      if (!resumed) return { failure: unauthorized(authMessages.invalidSession, challenges) };
      const { session, extended } = resumed;
      return { caller: { kind: 'session', userId: session.userId, session, via: credential.via, extended } };
    }
  }
}
