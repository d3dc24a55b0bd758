import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { webAppSecurityHeaders } from './web-app.js';

/**
 * Security headers (helmet). JSON under /api gets what OWASP's REST cheat sheet asks of APIs: nothing may
 * render, frame or sniff it, and other origins may read it (CORS decides who). HTML pages (/docs, /problems)
 * get helmet's full document set with a CSP that lets Swagger UI run from our own files. Everything else is
 * the web app, with its own, stricter CSP (web-app.ts).
 */
export function securityHeaders(publicUrl: string): RequestHandler {
  const hsts = publicUrl.startsWith('https:');
  const api = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
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
  });
  const documents = helmet({
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
  });
  const webApp = webAppSecurityHeaders(hsts);
  const serverPage = (path: string) => path === '/docs' || path.startsWith('/docs/') || path.startsWith('/problems/');
  return (req, res, next) =>
    (req.path.startsWith('/api/') ? api : serverPage(req.path) ? documents : webApp)(req, res, next);
}
