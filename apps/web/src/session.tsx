import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { errorMessage, isSignedOutError, type Credentials, type User } from './api.js';
import { useApi } from './api-context.js';

/**
 * Who is signed in. The browser's only credential is the `HttpOnly` session cookie, which no script can
 * read, so the app asks the server (`GET /api/v1/auth/session`) once at start and keeps just the user here,
 * in memory: nothing goes to localStorage or sessionStorage.
 *
 * `ended` is a session that stopped working while a page was open (signed out elsewhere, expired): unlike
 * `signed-out`, pages stay where they are, with what was typed, and offer to sign in again in place.
 */
export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'signed-in'; user: User }
  | { status: 'ended'; email: string }
  | { status: 'unknown'; error: string };

export interface Session {
  state: SessionState;
  signIn: (credentials: Credentials) => Promise<void>;
  signUp: (credentials: Credentials) => Promise<void>;
  signOut: () => Promise<void>;
  /** The server said the session is over (a 401) in the middle of something: offer to sign in again. */
  expired: () => void;
  /** The account or this session is gone on purpose (deleted, signed out here): plain signed-out. */
  signedOut: () => void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  useEffect(() => {
    let current = true;
    api.session().then(
      (user) => current && setState(user ? { status: 'signed-in', user } : { status: 'signed-out' }),
      (error: unknown) => current && setState({ status: 'unknown', error: errorMessage(error) }),
    );
    return () => {
      current = false;
    };
  }, [api]);

  const signIn = useCallback(
    async (credentials: Credentials) => setState({ status: 'signed-in', user: await api.signIn(credentials) }),
    [api],
  );
  const signUp = useCallback(
    async (credentials: Credentials) => setState({ status: 'signed-in', user: await api.signUp(credentials) }),
    [api],
  );
  const signOut = useCallback(async () => {
    try {
      await api.signOut();
    } catch (error) {
      // A session that had already ended is signed out all the same; anything else the caller shows.
      if (!isSignedOutError(error)) throw error;
    }
    setState({ status: 'signed-out' });
  }, [api]);
  const expired = useCallback(
    () => setState((s) => (s.status === 'signed-in' ? { status: 'ended', email: s.user.email } : s)),
    [],
  );
  const signedOut = useCallback(() => setState({ status: 'signed-out' }), []);

  const session = useMemo(
    () => ({ state, signIn, signUp, signOut, expired, signedOut }),
    [state, signIn, signUp, signOut, expired, signedOut],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession needs a <SessionProvider> above it');
  return session;
}

/** The session where there is one: the releases pages also work on their own (browsing needs no account). */
export function useOptionalSession(): Session | null {
  return useContext(SessionContext);
}
