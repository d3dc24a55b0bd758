import type { SessionRecord } from '../db/interface.js';

/** Who is calling, once their credential has been verified. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'api-key'; keyId: string; ownerId: string | null }
  | {
      kind: 'session';
      userId: string;
      session: SessionRecord;
      /** How the token arrived: a cookie is subject to CSRF checks, a header is not. */
      via: 'cookie' | 'bearer';
      /** Set when this request moved the session's idle expiry, so the cookie is renewed with it. */
      extended: boolean;
    };

export type SessionCaller = Extract<Caller, { kind: 'session' }>;
