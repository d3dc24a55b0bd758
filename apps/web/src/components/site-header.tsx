import { useState } from 'react';
import { errorMessage } from '../api.js';
import { Link, navigate, useLocation } from '../router.js';
import { routes } from '../routes.js';
import { useSession } from '../session.js';

function NavLink({ to, children }: { to: string; children: string }) {
  const { pathname } = useLocation();
  return (
    <Link to={to} aria-current={pathname === to ? 'page' : undefined}>
      {children}
    </Link>
  );
}

export function SiteHeader() {
  const session = useSession();
  const [message, setMessage] = useState('');
  const { state } = session;

  const signOut = async () => {
    try {
      await session.signOut();
      setMessage('You are signed out.');
      navigate(routes.releases);
    } catch (caught) {
      setMessage(`Signing out failed: ${errorMessage(caught)}`);
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
            <li>
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
        <div className="account">
          {state.status === 'signed-in' && (
            <>
              <span className="account-email" title={state.user.email}>
                {state.user.email}
              </span>
              <button type="button" className="secondary" onClick={() => void signOut()}>
                Sign out
              </button>
            </>
          )}
          {(state.status === 'signed-out' || state.status === 'unknown') && (
            <>
              <NavLink to={routes.signIn}>Sign in</NavLink>
              <Link to={routes.signUp} className="button-link">
                Sign up
              </Link>
            </>
          )}
        </div>
      </div>
      <p role="status" className="visually-hidden">
        {message}
      </p>
    </header>
  );
}
