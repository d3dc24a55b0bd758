import type { Registry } from 'prom-client';

/*
 * The label values below are what operators see and alert on, so they are spelled out here, where the metrics
 * are described, rather than borrowed from the modules that report them: a new value there (a key failure, a
 * quota) does not compile where it is reported until it is added here too.
 */

/**
 * How a key verification ended (`keys/`): a pass, the refusal's reason, or no answer (a 503: the manager or
 * database failed).
 */
export type KeyVerificationResult =
  | 'valid'
  | 'malformed'
  | 'bad-checksum'
  | 'unknown'
  | 'revoked'
  | 'expired'
  | 'disabled'
  | 'rate-limited'
  | 'usage-exceeded'
  | 'forbidden'
  | 'unavailable';

/** The quota a 429 came from: a caller quota (`rate-limit/quotas.ts`), or the failed-credential guard. */
export type RefusedQuota = 'anonymous' | 'api-key' | 'session' | 'auth' | 'failed-credentials';

/** A connection pool's use, read when metrics are scraped. */
export interface PoolUse {
  /** Connections open, busy or idle. */
  total: number;
  idle: number;
  /** Queries waiting for a connection: the pool is saturated while this is above 0. */
  waiting: number;
  /** The most connections the pool opens (`DATABASE_POOL_SIZE`). */
  max: number;
}

/** The Unkey calls the `unkey` key manager makes. */
export type UnkeyOperation = 'keys.verifyKey' | 'keys.createKey' | 'keys.deleteKey';

/** How one Unkey call ended: answered, failed (an error status, unreachable, a malformed answer), or out of time. */
export type UnkeyOutcome = 'ok' | 'error' | 'timeout';

/**
 * What the server tells its metrics (SPEC §10), one method per kind of event; `PrometheusMetrics` counts them
 * when `METRICS_PORT` is set, `noMetrics` otherwise, so code that reports never asks whether anyone listens.
 * The request path calls `request` and `answerCacheLookup` on every request: implementations keep them to an
 * addition or two.
 */
export interface Metrics {
  /** The registry `main.ts` serves on `METRICS_PORT`; undefined when metrics are off. */
  readonly registry: Registry | undefined;
  /**
   * One answered request, from its log line (`logRequest`, on the Express path and the answer cache's alike).
   * `route` is the contract's path (`/api/v1/release/:id`), undefined outside the contract.
   */
  request(route: string | undefined, method: string, status: number, ms: number): void;
  /** A replayable GET met the answer cache: answered from memory (`hit`), or handed to the app. */
  answerCacheLookup(hit: boolean): void;
  /** A request refused with a 429 by a quota, before it reached its route. */
  rateLimitRefusal(quota: RefusedQuota): void;
  /** An API key verified by the key manager. */
  keyVerification(result: KeyVerificationResult): void;
  /**
   * One scrypt derivation: a password hashed or checked (a decoy's included), at cost `logN` (log2 of N). The
   * server's most expensive work per request, and the same for an unknown email as for a wrong password.
   */
  passwordHash(logN: number): void;
  /** One call to Unkey, retries included, as long as it took. */
  unkeyCall(operation: UnkeyOperation, outcome: UnkeyOutcome, ms: number): void;
  /** Reads the database pool's use when scraped (PostgreSQL; undefined: no pool). */
  watchPool(read: () => PoolUse | undefined): void;
  /** Reads, when scraped, whether the shared rate-limit store (Redis) answers. */
  watchRateLimitStore(available: () => boolean): void;
}

/** Metrics off (`METRICS_PORT` unset): nothing counted, nothing served. */
export const noMetrics: Metrics = {
  registry: undefined,
  request: () => undefined,
  answerCacheLookup: () => undefined,
  rateLimitRefusal: () => undefined,
  keyVerification: () => undefined,
  passwordHash: () => undefined,
  unkeyCall: () => undefined,
  watchPool: () => undefined,
  watchRateLimitStore: () => undefined,
};
