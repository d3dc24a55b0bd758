import type { RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import { AccountService } from './auth/accounts.js';
import { createAdmission, type Admit } from './auth/admission.js';
import { FailedCredentialGuard } from './auth/failed-credentials.js';
import { PasswordPolicy } from './auth/password-policy.js';
import { PasswordResets } from './auth/password-resets.js';
import { PasswordHasher } from './auth/passwords.js';
import { SessionCookie } from './auth/session-cookie.js';
import { SessionService } from './auth/sessions.js';
import { CursorCodec } from './catalogue/cursor.js';
import { systemClock, type Clock } from './kernel/clock.js';
import type { Config } from './config.js';
import { AnswerCache } from './http/answer-cache.js';
import { clientAddressResolver, compileTrust, type TrustRule } from './http/client-address.js';
import { publicReadCors, type PublicReadCors } from './http/cors.js';
import { fastPath } from './http/fast-path.js';
import { securityHeaders, type SecurityHeaders } from './http/security-headers.js';
import type { KeyManager } from './keys/key-manager.js';
import { createKeyManager } from './keys/key-managers.js';
import { noMetrics, type Metrics } from './metrics/metrics.js';
import { PrometheusMetrics } from './metrics/prometheus-metrics.js';
import { SmtpMailer, type Mailer } from './mail/mailer.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document.js';
import type { CounterStore } from './rate-limit/interface.js';
import { FallbackCounterStore } from './rate-limit/fallback-counter-store.js';
import { MemoryCounterStore } from './rate-limit/memory-counter-store.js';
import { CallerQuotas } from './rate-limit/quotas.js';
import { openSharedRedis, RedisCounterStore, type SharedRedis } from './rate-limit/redis-counter-store.js';
import { RouteTable } from './http/route-table.js';
import { facetsReads, facetsReplays, type FacetsReads } from './routes/facets.js';
import { releaseReads, releaseReplays, type ReleaseReads } from './routes/release.js';
import {
  failureStoreWindowMs,
  SignInThrottle,
  turnStoreWindowMs,
  type SignInThrottleStores,
} from './rate-limit/sign-in-throttle.js';
import { openStorage } from './db/index.js';
import type { Storage } from './db/interface.js';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/**
 * The composition root: everything the server and the CLI are made of is built here, once, and handed down as
 * explicit dependencies. `main.ts` (and the test harness) only wire what this builds to a listening socket.
 */

export interface Services {
  config: Config;
  storage: Storage;
  keys: KeyManager;
  sessions: SessionService;
  accounts: AccountService;
  /** scrypt at `PASSWORD_HASH_COST`, with its decoy for unknown emails. */
  passwords: PasswordHasher;
  /** Password reset by mail; its mail goes out after the request that asked is answered. */
  resets: PasswordResets;
  clock: Clock;
  cursorSecret: string;
  /** What the server counts (SPEC §10): Prometheus' registry when `METRICS_PORT` is set, else `noMetrics`. */
  metrics: Metrics;
  /** Closes what these services hold: resets being sent, the key manager's pending writes, then the database. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  /** Overrides `DATABASE_STATEMENT_TIMEOUT` (the CLI's long imports use 0: no bound). */
  statementTimeoutMs?: number;
  /** Wraps the storage before anything is built on it (tests count or fail lookups). */
  wrapStorage?: (storage: Storage) => Storage;
  /** How often API key last-use times are written (tests shorten it). */
  usageFlushIntervalMs?: number;
  /**
   * How often everyone's ended sessions are deleted; none when unset (the CLI). A session's own sign-in sweeps
   * that user's, but a user who never signs in again would otherwise leave theirs behind for good.
   */
  sessionSweepIntervalMs?: number;
}

/** Opens and migrates the database and builds what both the server and the CLI need. */
export async function openServices(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const opened = await openStorage(config.databaseUrl, {
    statementTimeoutMs: options.statementTimeoutMs ?? config.databaseStatementTimeoutMs,
    poolSize: config.databasePoolSize,
    catalogueIndex: config.catalogueInMemory,
    logger,
  });
  const storage = options.wrapStorage ? options.wrapStorage(opened) : opened;
  try {
    await storage.migrate();
    const metrics = config.metrics ? new PrometheusMetrics({ version }) : noMetrics;
    // The pool as opened (a test's wrapper need not pass it on); SQLite has none to watch.
    if (opened.poolUse?.()) metrics.watchPool(() => opened.poolUse?.());
    const keys = createKeyManager({
      config,
      keys: storage.keys,
      clock,
      logger,
      metrics,
      ...(options.usageFlushIntervalMs === undefined ? {} : { usageFlushIntervalMs: options.usageFlushIntervalMs }),
    });
    const sessions = new SessionService(storage.sessions, clock, config.sessions);
    const passwords = new PasswordHasher(config.passwordHashCost, (logN) => metrics.passwordHash(logN));
    const accounts = new AccountService({
      passwords,
      accounts: storage.accounts,
      sessions,
      keys,
      keyStore: storage.keys,
      policy: PasswordPolicy.load(),
      clock,
    });
    const mailer: Mailer | undefined = config.smtp ? new SmtpMailer(config.smtp) : undefined;
    const resets = new PasswordResets({
      ping: () => storage.ping(),
      passwords,
      users: storage.accounts,
      resets: storage.passwordResets,
      accounts,
      sessions,
      mailer,
      publicUrl: config.publicUrl,
      environment: config.env,
      clock,
      logger,
    });
    const cursorSecret = config.cursorSecret ?? (await storage.secrets.serverSecret('cursor'));
    const sweeps =
      options.sessionSweepIntervalMs === undefined
        ? undefined
        : sweepSessionsEvery(options.sessionSweepIntervalMs, sessions, logger);
    return {
      config,
      storage,
      keys,
      sessions,
      accounts,
      passwords,
      resets,
      clock,
      cursorSecret,
      metrics,
      async close() {
        clearInterval(sweeps);
        await resets.close();
        mailer?.close();
        await keys.close?.().catch((error: unknown) => logger.warn({ err: error }, 'closing the key manager failed'));
        await opened.close();
      },
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/**
 * Deletes ended sessions on a timer that does not keep the process alive; a failed sweep waits for the next
 * (each is bounded by the statement timeout, far shorter than the interval).
 */
function sweepSessionsEvery(intervalMs: number, sessions: SessionService, logger: Logger): NodeJS.Timeout {
  const sweep = () =>
    sessions.sweep().then(
      (deleted) => {
        if (deleted > 0) logger.debug({ deleted }, 'deleted ended sessions');
      },
      (error: unknown) => logger.warn({ err: error }, 'could not delete ended sessions; trying again later'),
    );
  return setInterval(() => void sweep(), intervalMs).unref();
}

/** What the HTTP server is made of besides the services: built once, by `composeServer`. */
export interface ServerParts {
  /** The contract's routes: what Express mounts and the fast path matches. */
  routes: RouteTable;
  cookie: SessionCookie;
  /** The one admission function (`auth/admission.ts`) of the Express pipeline and the answer cache alike. */
  admit: Admit;
  /** `TRUST_PROXY`, compiled: Express and `admit` resolve the client address by the same rule. */
  trust: TrustRule;
  /** What the public reads answer, as text; the Express routes and the fast path both serve these. */
  reads: { release: ReleaseReads; facets: FacetsReads };
  securityHeaders: SecurityHeaders;
  cors: PublicReadCors;
  /** The public reads' path ahead of Express (`http/fast-path.ts`), with its answer cache. */
  fastPath: (app: RequestListener) => RequestListener;
  /** The per-account sign-in throttle (SPEC §3.7), counted where the quotas are. */
  throttle: SignInThrottle;
  openApiDocument: OpenApiDocument;
  isShuttingDown: () => boolean;
  /** Releases what these parts hold (the shared Redis connection). */
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Reported by /readyz, and turns the answer cache off, while the process drains. */
  isShuttingDown?: () => boolean;
  /**
   * Where quotas are counted. By default Redis when `REDIS_URL` is set (shared by every instance, failing
   * open), else this process's memory. Tests pass a Redis store of their own (a key prefix per test).
   */
  counters?: CounterStore;
  /** Where the sign-in throttle counts; by default where the quotas do (Redis or memory). */
  throttleStores?: SignInThrottleStores;
}

/** Builds the HTTP server's parts over the services: quotas, the guard, the cookie, cursors, admission, caches. */
export async function composeServer(
  services: Services,
  logger: Logger,
  options: ServerOptions = {},
): Promise<ServerParts> {
  const { config, clock } = services;
  const redis =
    options.counters === undefined && config.redisUrl ? await openSharedRedis(config.redisUrl, logger) : undefined;
  const counters =
    options.counters ??
    (redis
      ? new RedisCounterStore(redis, { prefix: 'releases:rl:', windowMs: config.rateLimits.windowMs })
      : new MemoryCounterStore(config.rateLimits.windowMs));
  if (redis) services.metrics.watchRateLimitStore(() => redis.available);
  const throttleStores = options.throttleStores ?? signInThrottleStores(redis);
  const cookie = new SessionCookie(config.publicUrl);
  const trust = compileTrust(config.trustProxy);
  const isShuttingDown = options.isShuttingDown ?? (() => false);
  const admit = createAdmission({
    keys: services.keys,
    sessions: services.sessions,
    guard: new FailedCredentialGuard({
      windowMs: config.rateLimits.windowMs,
      limit: config.rateLimits.anonymous,
      clock,
    }),
    quotas: new CallerQuotas(config, counters, logger),
    cookie,
    authMode: config.authMode,
    ownOrigin: new URL(config.publicUrl).origin,
    clientAddress: clientAddressResolver(trust),
    now: () => clock.now(),
    metrics: services.metrics,
  });
  const cursors = new CursorCodec(services.cursorSecret);
  const reads = {
    release: releaseReads({ config, catalogue: services.storage.catalogue, clock, cursors }),
    facets: facetsReads({ catalogue: services.storage.catalogue, clock }),
  };
  const routes = new RouteTable();
  const headers = securityHeaders(config.publicUrl);
  const cors = publicReadCors(config.corsOrigins);
  return {
    routes,
    cookie,
    admit,
    trust,
    reads,
    securityHeaders: headers,
    cors,
    fastPath: fastPath({
      admit,
      routes,
      replays: [...releaseReplays(reads.release), ...facetsReplays(reads.facets)],
      answers: new AnswerCache(),
      catalogue: services.storage.catalogue,
      apiHeaders: headers.api,
      cors,
      publicUrl: config.publicUrl,
      logger,
      metrics: services.metrics,
      clock,
      isShuttingDown,
      onLookup: (hit) => services.metrics.answerCacheLookup(hit),
    }),
    throttle: new SignInThrottle(throttleStores, clock, logger),
    openApiDocument: buildOpenApiDocument(config, version),
    isShuttingDown,
    async close() {
      await redis?.close();
    },
  };
}

/**
 * The sign-in throttle's counters: in Redis beside the quotas' when it is shared, with this process's memory
 * taking over while Redis does not answer; else in this process.
 */
function signInThrottleStores(redis: SharedRedis | undefined): SignInThrottleStores {
  const memory = {
    // Accounts being guessed at within one window: far fewer than callers.
    failures: new MemoryCounterStore(failureStoreWindowMs, { maxKeys: 10_000 }),
    turns: new MemoryCounterStore(turnStoreWindowMs, { maxKeys: 10_000 }),
  };
  if (!redis) return memory;
  return {
    failures: new FallbackCounterStore(
      new RedisCounterStore(redis, { prefix: 'releases:signin-failures:', windowMs: failureStoreWindowMs }),
      memory.failures,
    ),
    turns: new FallbackCounterStore(
      new RedisCounterStore(redis, { prefix: 'releases:signin-turns:', windowMs: turnStoreWindowMs }),
      memory.turns,
    ),
  };
}

/** Warms what the first sign-in would otherwise pay for (the decoy password hash), off the request path. */
export function warmUp(services: Pick<Services, 'passwords'>, logger: Logger): void {
  services.passwords
    .prepareDecoy()
    .catch((error: unknown) => logger.warn({ err: error }, 'could not prepare the decoy password hash'));
}
