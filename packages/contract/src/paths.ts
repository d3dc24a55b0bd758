/**
 * The web app's pages (SPEC §9). The server answers each with the app's `index.html` for any client; the app
 * routes on them.
 */
export const webAppPaths = {
  releases: '/',
  signIn: '/signin',
  signUp: '/signup',
  keys: '/settings/keys',
  forgotPassword: '/forgot-password',
  /** Where a password reset mail's link leads: `{PUBLIC_URL}/reset-password#token=<token>`. */
  resetPassword: '/reset-password',
  account: '/settings/account',
} as const;

/** The fragment parameter of a reset link that carries the token (a fragment never reaches a server or Referer). */
export const passwordResetTokenParameter = 'token';

/** Every route's path, once: the ts-rest router and the SDK both read them from here. */
export const apiPaths = {
  releaseList: '/api/v1/release',
  release: '/api/v1/release/:id',
  facets: '/api/v1/facets',
  health: '/api/v1/health',
  signup: '/api/v1/auth/signup',
  login: '/api/v1/auth/login',
  logout: '/api/v1/auth/logout',
  session: '/api/v1/auth/session',
  password: '/api/v1/auth/password',
  sessions: '/api/v1/auth/sessions',
  sessionById: '/api/v1/auth/sessions/:id',
  passwordReset: '/api/v1/auth/password-reset',
  passwordResetConfirm: '/api/v1/auth/password-reset/confirm',
  account: '/api/v1/auth/account',
  keys: '/api/v1/keys',
  key: '/api/v1/keys/:id',
  openapi: '/api/v1/openapi.json',
  docs: '/docs',
  problem: '/problems/:kind',
  live: '/livez',
  ready: '/readyz',
} as const;
