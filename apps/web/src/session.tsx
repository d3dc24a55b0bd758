import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { errorMessage, type Credentials, type User } from './api.js';
import { useApi } from './api-context.js';

/**
 * Who is signed in. The browser's only credential is the `HttpOnly` session cookie, which no script can
 * read, so the app asks the server (`GET /api/v1/auth/session`) once at start and keeps just the user here,
 * in memory: nothing goes to localStorage or sessionStorage.
 */
export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'signed-in'; user: User }
  | { status: 'unknown'; error: string };

export interface Session {
  state: SessionState;
  signIn: (credentials: Credentials) => Promise<void>;
  signUp: (credentials: Credentials) => Promise<void>;
  signOut: () => Promise<void>;
  /** The server said the session is over (a 401): show the signed-out state. */
  expired: () => void;
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
    await api.signOut();
    setState({ status: 'signed-out' });
  }, [api]);
  const expired = useCallback(() => setState({ status: 'signed-out' }), []);

  const session = useMemo(
    () => ({ state, signIn, signUp, signOut, expired }),
    [state, signIn, signUp, signOut, expired],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession needs a <SessionProvider> above it');
  return session;
}
