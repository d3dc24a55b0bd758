/**
 * The app's pages (SPEC §9). The server answers each of these paths with `index.html` for any client
 * (apps/server/src/http/web-app.ts keeps the same list; the browser test checks that it does).
 */
export const routes = {
  releases: '/',
  signIn: '/signin',
  signUp: '/signup',
  keys: '/settings/keys',
} as const;
