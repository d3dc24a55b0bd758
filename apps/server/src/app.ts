import type { RequestListener } from 'node:http';
import { contract } from '@releases/contract';
import { initServer, createExpressEndpoints } from '@ts-rest/express';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { responseCompression } from './http/compression.js';
import { publicReadPaths } from './http/cors.js';
import { docsAssets } from './http/docs-assets.js';
import { parseQueryString } from './http/query-string.js';
import { requestId } from './http/request-id.js';
import { mountRoutePipeline } from './http/route-pipeline.js';
import { unmatchedRoute } from './http/unmatched-route.js';
import { webApp } from './http/web-app.js';
import { requestLogger } from './http/request-log.js';
import { boundedRequestBodies } from './http/request-bodies.js';
import { HttpProblem, validationProblem } from './kernel/http-problem.js';
import { problemHandler } from './http/problem-response.js';
import { authRoutes } from './routes/auth.js';
import { docsRoutes } from './routes/docs.js';
import { facetsRoutes } from './routes/facets.js';
import { healthRoutes } from './routes/health.js';
import { keysRoutes } from './routes/keys.js';
import { openapiRoutes } from './routes/openapi.js';
import { probesRoutes } from './routes/probes.js';
import { releaseRoutes } from './routes/release.js';
import type { ServerParts, Services } from './services.js';

/** What the app is built from: the services and the server's parts (`services.ts`), and where it logs. */
export interface AppDeps extends Services, ServerParts {
  logger: Logger;
  /** The built web app (`apps/web/dist` by default). */
  webAppRoot?: string;
}

export interface App {
  /** What a server listens with: the guard on request bodies, then the fast path, in front of Express. */
  listener: RequestListener;
  /** The Express app behind it (tests read its routes). */
  express: Express;
}

/**
 * Builds the app: the public reads' fast path (`http/fast-path.ts`) in front of Express, whose middleware
 * order, routes and terminal problem handler are wired here. Listens on nothing: `main.ts` (or a test) does
 * that, and both serve this same listener.
 */
export function createApp(deps: AppDeps): App {
  const { config, storage, logger, clock } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trust);
  app.set('query parser', parseQueryString);
  app.set('etag', false);
  // We send no validators (no ETag, no Last-Modified), so no request is ever fresh: `If-None-Match: *` must not
  // turn an answer into a bodyless 304 on one path and not on another (the answer cache does not either).
  Object.defineProperty(app.request, 'fresh', { configurable: true, get: () => false });

  app.use(requestId, requestLogger(logger, deps.metrics), (_req, res, next) => {
    // While draining, each answered request also closes its connection, so shutdown need not wait for idle sockets.
    if (deps.isShuttingDown()) res.setHeader('connection', 'close');
    next();
  });
  app.use(responseCompression());
  app.use(deps.securityHeaders.middleware);
  app.use(publicReadPaths(deps.routes), deps.cors.middleware);

  mountRoutePipeline(app, deps.routes, deps.admit);
  const server = initServer();
  createExpressEndpoints(
    contract,
    server.router(contract, {
      release: releaseRoutes(deps.reads.release),
      facets: facetsRoutes(deps.reads.facets),
      health: healthRoutes({ storage }),
      auth: authRoutes({
        config,
        accounts: deps.accounts,
        users: storage.accounts,
        sessions: deps.sessions,
        resets: deps.resets,
        throttle: deps.throttle,
        cookie: deps.cookie,
        clock,
      }),
      keys: keysRoutes({ keys: deps.keys, store: storage.keys }),
      openapi: openapiRoutes(deps.openApiDocument),
      docs: docsRoutes({ publicUrl: config.publicUrl }),
      probes: probesRoutes({ storage, isShuttingDown: deps.isShuttingDown }),
    }),
    app,
    {
      logInitialization: false,
      responseValidation: false,
      requestValidationErrorHandler: (error, _req, _res, next) => {
        if (error.pathParams) return next(validationProblem(error.pathParams, 'parameter'));
        if (error.query) return next(validationProblem(error.query, 'parameter'));
        if (error.headers) return next(validationProblem(error.headers, 'header'));
        if (error.body) return next(validationProblem(error.body, 'pointer'));
        next(new HttpProblem('invalid-request', 'The request is invalid.'));
      },
    },
  );

  app.use('/docs/assets', docsAssets());
  app.use(webApp(deps.webAppRoot));
  app.use(unmatchedRoute(deps.routes));
  app.use(problemHandler({ publicUrl: config.publicUrl, logger }));

  const listener = boundedRequestBodies(
    { routes: deps.routes, publicUrl: config.publicUrl, logger, metrics: deps.metrics },
    deps.fastPath(app),
  );
  return { listener, express: app };
}
