import { passwordResetTokenParameter } from '@releases/contract/wire';
import { routes } from './routes.js';

let captured: string | undefined;

/**
 * A reset link carries its token in the fragment (`/reset-password#token=...`), which never reaches a server
 * log or a Referer. Read it once, then take it out of the address bar with `replaceState`, so it is neither
 * left on screen nor kept in the history (Back, a shared screen, a synced history). `main.tsx` calls this
 * before the app renders anything; the page calls it again in case the app was already running.
 */
export function captureResetToken(location: Location = window.location, history: History = window.history): void {
  if (location.pathname.replace(/\/+$/, '') !== routes.resetPassword || location.hash.length < 2) return;
  const token = new URLSearchParams(location.hash.slice(1)).get(passwordResetTokenParameter);
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  if (token) captured = token;
}

/** The token the reset link carried, if it did. */
export function resetToken(): string | undefined {
  return captured;
}

/** Forgets the token once it has been used (or refused), so a later visit cannot send it again. */
export function forgetResetToken(): void {
  captured = undefined;
}
