import { useEffect, type ReactNode } from 'react';
import { navigate } from './router.js';
import { routes } from './routes.js';
import { useSession } from './session.js';

/**
 * For pages of signed-in users: a visitor who is not signed in goes to sign in and comes back here after.
 * Returns what to show instead of the page while the session is being asked for or cannot be, or `null`
 * when the page may show. A session that ended while the page was open (`ended`) keeps the page, and what
 * was typed in it: the app offers to sign in again over it.
 */
export function useSignedInOnly(): ReactNode {
  const session = useSession();
  const signedOut = session.state.status === 'signed-out';

  useEffect(() => {
    if (!signedOut) return;
    const here = `${window.location.pathname}${window.location.search}`;
    navigate(`${routes.signIn}?next=${encodeURIComponent(here)}`, { replace: true });
  }, [signedOut]);

  switch (session.state.status) {
    case 'loading':
      return <p role="status">Checking your session…</p>;
    case 'unknown':
      return (
        <div className="problem" role="alert">
          <p>{session.state.error}</p>
          <button type="button" onClick={() => window.location.reload()}>
            Retry
          </button>
        </div>
      );
    case 'signed-out':
      return <p role="status">Taking you to sign in…</p>;
    default:
      return null;
  }
}
