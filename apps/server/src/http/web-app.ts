import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { apiPaths, webAppPaths } from '@releases/contract';
import express, { type RequestHandler, type Router } from 'express';
import helmet from 'helmet';
import { serverRoot } from '../config.js';
import { HttpProblem } from '../kernel/http-problem.js';
import { codingFor, type Coding } from './compression.js';
import vary from 'vary';
import type { IncomingMessage } from 'node:http';
import { requestContext } from './request-context.js';

/** Where `pnpm build` puts the web app (`apps/web/dist`), found from this package, not from the cwd. */
const webAppRoot = path.resolve(serverRoot, '..', 'web', 'dist');

/** The first path segment of everything the server answers itself (`api`, `docs`, `problems`, `livez`, `readyz`). */
const serverSegments = new Set(Object.values(apiPaths).map((route) => route.split('/')[1]));

/**
 * The web app's own pages (`webAppPaths` in the contract, which the app routes on). They get the app for any
 * client; other paths only for a browser navigating (one that asks for `text/html`), so a script that fetches
 * a path that does not exist still gets a problem, not a page.
 */
export const webAppRoutes = new Set<string>(Object.values(webAppPaths));

/** A browser navigating names `text/html` (or XHTML) in `Accept`; a bare wildcard is not asking for a page. */
function asksForPage(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(accept);
}

export const webAppMessages = {
  notBuilt:
    'The web app is not built yet. Run `pnpm build` (or `pnpm start`, which builds everything) and reload. The API is at /api/v1 and its reference at /docs.',
} as const;

/**
 * The web app (SPEC §9), served from its build folder:
 * - `/assets/*` are content-hashed by Vite, so they are cached for a year and never revalidated;
 * - other files of the folder (the favicon) and `index.html` are revalidated on every use (`no-cache`), so a new
 *   deployment is picked up at once;
 * - the app's routes (`/signin`, `/settings/keys`), and any other path a browser navigates to that names no
 *   file, get `index.html` and the app's router takes over (it shows its own "not found" page).
 * Paths the server owns (`/api`, `/docs`, `/problems`, the probes) never fall back, so an unknown `/api/...`
 * stays a problem+json 404; so does a missing file, rather than HTML served as a script.
 */
export function webApp(root: string = webAppRoot): Router {
  const router = express.Router();
  const index = path.join(root, 'index.html');

  router.use(precompressedFiles(root));
  // A file of the build is a path the server knows (and may log).
  const known = (res: { req: IncomingMessage }) => (requestContext(res.req).pathKnown = true);
  router.use(
    '/assets',
    express.static(path.join(root, 'assets'), {
      index: false,
      redirect: false,
      maxAge: '1y',
      immutable: true,
      setHeaders: known,
    }),
  );
  router.use(
    express.static(root, {
      index: false,
      redirect: false,
      cacheControl: false,
      setHeaders: (res) => {
        known(res);
        res.setHeader('cache-control', 'no-cache');
      },
    }),
  );
  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (serverSegments.has(req.path.split('/')[1])) return next();
    if (/\.[^/]*$/.test(req.path)) return next();
    if (!req.accepts('html')) return next();
    const route = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
    const page = webAppRoutes.has(route);
    if (!page && !asksForPage(req.headers.accept)) return next();
    // The app's own pages are known paths; any other path a browser navigates to gets the app's "not found".
    requestContext(req).pathKnown = page;
    res.sendFile(index, { cacheControl: false, headers: { 'cache-control': 'no-cache' } }, (error?: Error) => {
      if (!error || res.headersSent) return;
      const missing = (error as { status?: number }).status === 404;
      next(missing ? new HttpProblem('not-found', webAppMessages.notBuilt) : error);
    });
  });
  return router;
}

/** The codings of which the build left a copy beside a file (`file.br`, `file.gz`), by the file's URL path. */
function precompressedVariants(root: string): Map<string, Set<Coding>> {
  const variants = new Map<string, Set<Coding>>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(file);
      const coding = entry.name.endsWith('.br') ? 'br' : entry.name.endsWith('.gz') ? 'gzip' : undefined;
      if (coding === undefined) continue;
      const urlPath = `/${path.relative(root, file).slice(0, -3).split(path.sep).join('/')}`;
      let codings = variants.get(urlPath);
      if (!codings) variants.set(urlPath, (codings = new Set()));
      codings.add(coding);
    }
  };
  if (existsSync(root)) walk(root);
  return variants;
}

/**
 * Files the build compressed (apps/web/precompress.ts: Brotli 11 and gzip 9) are sent compressed as they
 * are, by `Accept-Encoding`: nothing static is compressed per request. The request is pointed at the
 * compressed copy, which `express.static` then serves with the original's type and caching.
 */
function precompressedFiles(root: string): RequestHandler {
  const variants = precompressedVariants(root);
  const extensions: Record<Coding, string> = { br: '.br', gzip: '.gz' };
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const available = variants.get(req.path);
    if (available === undefined) return next();
    vary(res, 'Accept-Encoding');
    const coding = codingFor(req.headers['accept-encoding']);
    if (coding === undefined || !available.has(coding)) return next();
    res.setHeader('content-encoding', coding);
    res.type(path.extname(req.path));
    const query = req.url.indexOf('?');
    req.url =
      query === -1 ? req.url + extensions[coding] : req.url.slice(0, query) + extensions[coding] + req.url.slice(query);
    next();
  };
}

/**
 * The web app's headers: helmet's document set with a CSP that allows what the app needs and nothing more.
 * Scripts, styles, fonts and API calls come from this origin only, with no inline code of any kind, no plugins
 * and no framing. Covers are hotlinked from whatever https host the catalogue names, so images alone may come
 * from any `https:` origin: an image cannot run code, and no referrer goes with it (helmet's
 * `Referrer-Policy: no-referrer`). Plain `http:` images stay blocked (mixed content, readable in transit).
 */
export function webAppSecurityHeaders(hsts: boolean): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        manifestSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(hsts ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // The same rule as `frame-ancestors 'none'`, for browsers that only know the older header.
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: hsts,
  });
}
