import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { webAppSecurityHeaders } from './web-app.js';

/** Headers as `[name, value]` pairs, in the order helmet sets them. */
export type HeaderList = ReadonlyArray<readonly [string, string]>;

/**
 * The headers a helmet middleware sets, found once by running it against a response that only records them.
 * Helmet's headers depend on its options, never on the request, so every response of a kind gets the same
 * ones: applying the recorded list costs a loop instead of helmet's dozen middlewares per request.
 */
function recordedHeaders(middleware: RequestHandler): HeaderList {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
      return recorder;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    getHeader(name: string) {
      return headers.get(name.toLowerCase());
    },
  };
  let finished = false;
  middleware({ headers: {}, method: 'GET' } as never, recorder as never, (error?: unknown) => {
    if (error !== undefined) throw new Error('helmet refused its own options', { cause: error });
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously');
  return [...headers];
}

/** The security headers of each kind of response, by path. */
export interface SecurityHeaders {
  /** JSON under `/api`. */
  api: HeaderList;
  /** The server's own HTML pages: `/docs`, `/problems/...`. */
  documents: HeaderList;
  /** Everything else: the web app. */
  webApp: HeaderList;
  /** The list for a path. */
  forPath(path: string): HeaderList;
  /** Sets the list for the request's path on its response. */
  middleware: RequestHandler;
}

/**
 * Security headers (helmet). JSON under /api gets what OWASP's REST cheat sheet asks of APIs: nothing may
 * render, frame or sniff it, and other origins may read it (CORS decides who). HTML pages (/docs, /problems)
 * get helmet's full document set with a CSP that lets Swagger UI run from our own files. Everything else is
 * the web app, with its own, stricter CSP (web-app.ts).
 */
export function securityHeaders(publicUrl: string): SecurityHeaders {
  const hsts = publicUrl.startsWith('https:');
  const api = recordedHeaders(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      xFrameOptions: { action: 'deny' },
      strictTransportSecurity: hsts,
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      // These only mean something for documents a browser renders.
      crossOriginOpenerPolicy: false,
      originAgentCluster: false,
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
    }),
  );
  const documents = recordedHeaders(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          // Swagger UI sets inline styles and shows inline SVG and data: images.
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          scriptSrc: ["'self'"],
          connectSrc: ["'self'"],
        },
      },
      strictTransportSecurity: hsts,
    }),
  );
  const webApp = recordedHeaders(webAppSecurityHeaders(hsts));
  const serverPage = (path: string) => path === '/docs' || path.startsWith('/docs/') || path.startsWith('/problems/');
  const forPath = (path: string) => (path.startsWith('/api/') ? api : serverPage(path) ? documents : webApp);
  return {
    api,
    documents,
    webApp,
    forPath,
    middleware: (req, res, next) => {
      setHeaders(res, forPath(req.path));
      next();
    },
  };
}

export function setHeaders(res: ServerResponse, headers: HeaderList): void {
  for (const [name, value] of headers) res.setHeader(name, value);
}
