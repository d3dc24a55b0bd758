import { lazy, Suspense, useEffect, useRef } from 'react';
import { SessionEndedDialog } from './components/session-ended.js';
import { SiteHeader } from './components/site-header.js';
import { AuthPage } from './pages/auth-page.js';
import { NotFoundPage } from './pages/not-found-page.js';
import { ReleasePage } from './pages/release-page.js';
import { ReleasesPage } from './pages/releases-page.js';
import { focusPageHeading } from './page-title.js';
import { arrivedByHistory, historyEntry, savedScrollPosition, useLocation } from './router.js';
import { releaseIdOf, routes } from './routes.js';

// The settings and password pages are separate chunks, fetched when first opened: the releases page (the
// first page most people see) stays within its 80 KB of JavaScript, and the strength meter's dictionary
// travels only with the forms that choose a password.
const KeysPage = lazy(() => import('./pages/keys-page.js').then((m) => ({ default: m.KeysPage })));
const AccountPage = lazy(() => import('./pages/account-page.js').then((m) => ({ default: m.AccountPage })));
const ForgotPasswordPage = lazy(() =>
  import('./pages/forgot-password-page.js').then((m) => ({ default: m.ForgotPasswordPage })),
);
const ResetPasswordPage = lazy(() =>
  import('./pages/reset-password-page.js').then((m) => ({ default: m.ResetPasswordPage })),
);

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
    case routes.account:
      return <AccountPage />;
    case routes.forgotPassword:
      return <ForgotPasswordPage />;
    case routes.resetPassword:
      return <ResetPasswordPage />;
  }
  const releaseId = releaseIdOf(pathname);
  if (releaseId !== undefined) return <ReleasePage key={releaseId} id={releaseId} />;
  return <NotFoundPage />;
}

export function App() {
  const { pathname } = useLocation();
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const shownPath = useRef(path);

  // On each new page (not the first load, not a filter change), the focus moves to its heading: a screen
  // reader announces where the user is, and the next Tab starts from the top of the new content. A page
  // that restores its own place (the releases list after Back) says so with `data-keep-focus`.
  useEffect(() => {
    if (shownPath.current === path) return;
    shownPath.current = path;
    if (document.querySelector('main [data-keep-focus]')) return;
    // Scrolling is the app's to restore (`scrollRestoration = 'manual'`, for the releases list's sake).
    if (arrivedByHistory()) window.scrollTo(0, savedScrollPosition(historyEntry()) ?? 0);
    focusPageHeading();
  }, [path]);

  return (
    <>
      <SiteHeader />
      <main id="main" tabIndex={-1}>
        <SessionEndedDialog />
        <Suspense
          fallback={
            <p role="status" className="page-loading">
              Loading…
            </p>
          }
        >
          {page(path)}
        </Suspense>
      </main>
      <footer className="site-footer">
        <p>
          Sample data, not an authoritative discography. <a href="/docs">API reference</a>
        </p>
      </footer>
    </>
  );
}
