import { useEffect, useRef } from 'react';
import { SiteHeader } from './components/site-header.js';
import { AuthPage } from './pages/auth-page.js';
import { KeysPage } from './pages/keys-page.js';
import { NotFoundPage } from './pages/not-found-page.js';
import { ReleasesPage } from './pages/releases-page.js';
import { useLocation } from './router.js';
import { routes } from './routes.js';

/** The routes of SPEC §9. The server answers each of them with this app's `index.html`. */
function page(pathname: string) {
  switch (pathname) {
    case routes.releases:
      return <ReleasesPage />;
    case routes.signIn:
      return <AuthPage key="signin" mode="signin" />;
    case routes.signUp:
      return <AuthPage key="signup" mode="signup" />;
    case routes.keys:
      return <KeysPage />;
    default:
      return <NotFoundPage />;
  }
}

export function App() {
  const { pathname } = useLocation();
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const shownPath = useRef(path);

  // On each new page (not the first load, not a filter change), the focus moves to its heading: a screen
  // reader announces where the user is, and the next Tab starts from the top of the new content.
  useEffect(() => {
    if (shownPath.current === path) return;
    shownPath.current = path;
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [path]);

  return (
    <>
      <SiteHeader />
      <main id="main" tabIndex={-1}>
        {page(path)}
      </main>
      <footer className="site-footer">
        <p>
          Sample data, not an authoritative discography. <a href="/docs">API reference</a>
        </p>
      </footer>
    </>
  );
}
