/**
 * The web app's pages (SPEC §9). The server answers each with the app's `index.html` for any client; the app
 * routes on them.
 */
export const webAppPaths = {
  releases: '/',
  signIn: '/signin',
  signUp: '/signup',
  keys: '/settings/keys',
} as const;

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
  keys: '/api/v1/keys',
  key: '/api/v1/keys/:id',
  openapi: '/api/v1/openapi.json',
  docs: '/docs',
  problem: '/problems/:kind',
  live: '/livez',
  ready: '/readyz',
} as const;
