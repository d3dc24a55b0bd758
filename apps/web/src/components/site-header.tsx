import { useState } from 'react';
import { errorMessage } from '../api.js';
import { Link, navigate, useLocation } from '../router.js';
import { routes } from '../routes.js';
import { useSession } from '../session.js';
import { BusyButton } from './busy-button.js';

function NavLink({ to, children, className }: { to: string; children: string; className?: string }) {
  const { pathname } = useLocation();
  return (
    <Link to={to} className={className} aria-current={pathname === to ? 'page' : undefined}>
      {children}
    </Link>
  );
}

export function SiteHeader() {
  const session = useSession();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [message, setMessage] = useState('');
  const { state } = session;

  const signOut = async () => {
    if (busy) return;
    setBusy(true);
    setFailure(undefined);
    try {
      await session.signOut();
      setMessage('You are signed out.');
      navigate(routes.releases);
    } catch (caught) {
      // Said where it can be seen, not only announced: a person who thinks they signed out on a shared
      // computer must know they did not.
      setFailure(`Signing out failed: ${errorMessage(caught)} You are still signed in.`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <header className="site-header">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="site-header-inner">
        <Link to={routes.releases} className="brand">
          <span aria-hidden="true" className="brand-mark">
            ♪
          </span>
          Releases
        </Link>
        <nav aria-label="Main">
          <ul>
            <li>
              <NavLink to={routes.releases}>Releases</NavLink>
            </li>
            <li>
              <NavLink to={routes.keys}>API keys</NavLink>
            </li>
            {/* Always there (it leads to sign in when signed out): the header does not reflow when the session answers. */}
            <li>
              <NavLink to={routes.account}>Account</NavLink>
            </li>
            <li>
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
        {/* The account area keeps its size while the session is asked for, so nothing moves when it answers. */}
        <div className="account" data-state={state.status}>
          {state.status === 'signed-in' && (
            <>
              <span className="account-email" title={state.user.email}>
                {state.user.email}
              </span>
              <BusyButton className="secondary" busy={busy} onClick={() => void signOut()}>
                Sign out
              </BusyButton>
            </>
          )}
          {(state.status === 'signed-out' || state.status === 'unknown' || state.status === 'ended') && (
            <>
              <NavLink to={routes.signIn}>Sign in</NavLink>
              <Link to={routes.signUp} className="button-link">
                Sign up
              </Link>
            </>
          )}
          {state.status === 'loading' && <span className="account-placeholder" aria-hidden="true" />}
        </div>
      </div>
      <div role="alert" className="header-alert">
        {failure && (
          <div className="problem site-header-inner">
            <p>{failure}</p>
            <button type="button" className="secondary" onClick={() => setFailure(undefined)}>
              Dismiss
            </button>
          </div>
        )}
      </div>
      <p role="status" className="visually-hidden">
        {message}
      </p>
    </header>
  );
}
