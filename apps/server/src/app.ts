import type { RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import { contract, headerNames } from '@releases/contract';
import { initServer, createExpressEndpoints } from '@ts-rest/express';
import cors from 'cors';
import express, { type Express } from 'express';
import type { Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { AccountService } from './auth/accounts.js';
import type { KeyManager } from './auth/key-manager.js';
import { SessionCookie } from './auth/session-cookie.js';
import type { SessionService } from './auth/sessions.js';
import { CursorCodec } from './catalogue/cursor.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { docsAssets } from './http/docs-assets.js';
import { exposedHeaders, publicReadPaths, unmatchedRoute } from './http/guards.js';
import { parseQueryString } from './http/query-string.js';
import { requestId } from './http/request-id.js';
import { PublicReadCache } from './http/public-read-cache.js';
import { CallerQuotas, failedCredentialGuard } from './http/rate-limit.js';
import { mountRoutePipeline } from './http/route-pipeline.js';
import { securityHeaders } from './http/security-headers.js';
import { webApp } from './http/web-app.js';
import { requestLogger } from './logger.js';
import { buildOpenApiDocument } from './openapi.js';
import { HttpProblem, problemHandler, validationProblem } from './problems.js';
import { authRoutes } from './routes/auth.js';
import { docsRoutes } from './routes/docs.js';
import { keysRoutes } from './routes/keys.js';
import { sendPreserializedJson } from './routes/json-text.js';
import { facetsRoutes } from './routes/facets.js';
import { healthRoutes } from './routes/health.js';
import { probesRoutes } from './routes/probes.js';
import { releaseRoutes } from './routes/release.js';
import type { Storage } from './storage/interface.js';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

export interface AppDeps {
  config: Config;
  storage: Storage;
  keys: KeyManager;
  sessions: SessionService;
  accounts: AccountService;
  logger: Logger;
  clock: Clock;
  /** Secret that signs page cursors; shared by every instance. */
  cursorSecret: string;
  rateLimitStore?: Store;
  /** Reported by /readyz while the process drains. */
  isShuttingDown?: () => boolean;
  /** The built web app (`apps/web/dist` by default). */
  webAppRoot?: string;
}

/** Builds the Express app. Listens on nothing: `main.ts` (or a test) does that. */
export function createApp(deps: AppDeps): Express {
  return buildApp(deps).app;
}

/**
 * What a server listens with: the app, behind the cache that answers repeated anonymous public reads without
 * it (`http/public-read-cache.ts`). `main.ts` and the test harness serve this.
 */
export function createRequestListener(deps: AppDeps): RequestListener {
  const { app, publicReads } = buildApp(deps);
  return publicReads.listener(app);
}

function buildApp(deps: AppDeps): { app: Express; publicReads: PublicReadCache } {
  const { config, storage, logger, clock } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', parseQueryString);
  app.set('etag', false);
  sendPreserializedJson(app);

  const isShuttingDown = deps.isShuttingDown ?? (() => false);
  app.use(requestId, requestLogger(logger), (_req, res, next) => {
    // While draining, each answered request also closes its connection, so shutdown need not wait for idle sockets.
    if (isShuttingDown()) res.setHeader('connection', 'close');
    next();
  });
  app.use(securityHeaders(config.publicUrl));
  app.use(
    publicReadPaths(),
    cors({
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      methods: ['GET', 'HEAD'],
      allowedHeaders: [headerNames.apiKey, headerNames.requestId],
      exposedHeaders,
      maxAge: 600,
    }),
  );

  const cookie = new SessionCookie(config.publicUrl);
  const quotas = new CallerQuotas(config, logger, deps.rateLimitStore);
  const failedCredentials = failedCredentialGuard(config, logger, clock);
  const authenticator = { keys: deps.keys, sessions: deps.sessions };
  mountRoutePipeline(app, { config, clock, cookie, quotas, failedCredentials, ...authenticator });
  const openApiDocument = buildOpenApiDocument(config, version);
  const server = initServer();
  createExpressEndpoints(
    contract,
    server.router(contract, {
      release: releaseRoutes({
        config,
        catalogue: storage.catalogue,
        clock,
        cursors: new CursorCodec(deps.cursorSecret),
      }),
      facets: facetsRoutes({ catalogue: storage.catalogue, clock }),
      health: healthRoutes({ storage }),
      auth: authRoutes({
        config,
        accounts: deps.accounts,
        users: storage.accounts,
        sessions: deps.sessions,
        cookie,
        clock,
      }),
      keys: keysRoutes({ keys: deps.keys, store: storage.keys }),
      openapi: { document: async () => ({ status: 200, body: openApiDocument }) },
      docs: docsRoutes({ publicUrl: config.publicUrl }),
      probes: probesRoutes({ storage, isShuttingDown }),
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
  app.use(unmatchedRoute());
  app.use(problemHandler({ publicUrl: config.publicUrl, logger }));

  const trustProxy: unknown = app.get('trust proxy fn');
  if (typeof trustProxy !== 'function') throw new Error("Express did not compile the 'trust proxy' setting");
  const publicReads = new PublicReadCache({
    ...authenticator,
    catalogue: storage.catalogue,
    quotas,
    failedCredentials,
    anonymousAllowed: config.authMode === 'optional',
    logger,
    clock,
    sessionCookieName: cookie.name,
    trustProxy: trustProxy as (address: string, hop: number) => boolean,
    isShuttingDown,
  });
  return { app, publicReads };
}
