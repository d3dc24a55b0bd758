import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';
import type { KeyVerificationResult, Metrics, PoolUse, RefusedQuota, UnkeyOperation, UnkeyOutcome } from './metrics.js';

/** The `route` label of every request outside the contract (the web app, unknown paths): one value for them all. */
const otherRoute = 'other';

/** Request latency, in seconds: from an answer out of memory (0.5 ms) to a statement timeout's 503 (5 s). */
const requestBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Unkey calls, in seconds: a nearby region answers in milliseconds; `UNKEY_TIMEOUT` is 2 s (at most 30 s). */
const unkeyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

/** One series' running total, bumped where the event happens. */
interface Cell {
  value: number;
}

/**
 * A counter bumped with one addition on a cell its caller keeps. prom-client's own label children build a
 * string of their labels on every `inc` (about 200 ns each, measured), which the request path would pay on
 * every request; the cells' totals are handed to prom-client only when Prometheus scrapes.
 */
class CellCounter<Label extends string> {
  private readonly cells: Array<{ labels: LabelValues<Label>; cell: Cell }> = [];

  constructor(registry: Registry, config: { name: string; help: string; labelNames: readonly Label[] }) {
    const cells = this.cells;
    new Counter<Label>({
      ...config,
      registers: [registry],
      collect() {
        this.reset();
        for (const { labels, cell } of cells) this.inc(labels, cell.value);
      },
    });
  }

  /** A new series, shown (at 0) from the next scrape on. Call once per label combination and keep it. */
  cell(labels: Record<Label, string>): Cell {
    const cell = { value: 0 };
    this.cells.push({ labels, cell });
    return cell;
  }

  /** Cells by one label's value, made on first use. */
  by<Value extends string>(label: Label, fixed: Partial<Record<Label, string>> = {}): (value: Value) => Cell {
    const made = new Map<Value, Cell>();
    return (value) => {
      let cell = made.get(value);
      if (cell === undefined) {
        made.set(value, (cell = this.cell({ ...fixed, [label]: value })));
      }
      return cell;
    };
  }
}

/** A route and method's series: a count per status, and one latency histogram. */
interface RequestSeries {
  byStatus: Map<number, Cell>;
  duration: Histogram.Internal<'route' | 'method'>;
}

/**
 * Prometheus metrics of one server instance, in a registry of its own (tests run several servers in one
 * process), served by `main.ts` on `METRICS_PORT` (`metrics-listener.ts`). Label values come from bounded
 * sets only: the contract's route paths (never a URL), methods, statuses, quota and result names. Never a
 * key, token, email or address.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly requests = new CellCounter(this.registry, {
    name: 'releases_http_requests_total',
    help: 'Requests answered, by contract route (path template; "other" outside the contract), method and status.',
    labelNames: ['route', 'method', 'status'],
  });
  private readonly durations = new Histogram<'route' | 'method'>({
    name: 'releases_http_request_duration_seconds',
    help: 'Time from a request reaching the server to its response being handed to the socket, by route and method.',
    labelNames: ['route', 'method'],
    buckets: requestBuckets,
    registers: [this.registry],
  });
  /** route, then method: two map lookups per request, and the strings are the ones the request already has. */
  private readonly requestSeries = new Map<string, Map<string, RequestSeries>>();
  private readonly cacheHit: Cell;
  private readonly cacheMiss: Cell;
  private readonly refusals: (quota: RefusedQuota) => Cell;
  private readonly verifications: (result: KeyVerificationResult) => Cell;
  private readonly passwordHashes: (cost: string) => Cell;
  private readonly unkeyDurations = new Histogram<'operation' | 'outcome'>({
    name: 'releases_unkey_request_duration_seconds',
    help: 'Calls to Unkey (KEY_MANAGER=unkey), retries included, by operation and outcome (ok, error, timeout).',
    labelNames: ['operation', 'outcome'],
    buckets: unkeyBuckets,
    registers: [this.registry],
  });

  constructor(options: { version: string }) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'releases_info',
      help: 'Always 1; the running version in its label.',
      labelNames: ['version'],
      registers: [this.registry],
    }).set({ version: options.version }, 1);

    const lookups = new CellCounter(this.registry, {
      name: 'releases_answer_cache_lookups_total',
      help: 'Replayable GETs (a page, a release, the facets) answered from memory (hit) or by the app (miss).',
      labelNames: ['result'],
    });
    this.cacheHit = lookups.cell({ result: 'hit' });
    this.cacheMiss = lookups.cell({ result: 'miss' });

    const refusals = new CellCounter(this.registry, {
      name: 'releases_rate_limit_refusals_total',
      help: 'Requests refused with a 429 by a quota (anonymous, api-key, session, auth) or the failed-credential guard.',
      labelNames: ['quota'],
    });
    this.refusals = refusals.by<RefusedQuota>('quota');
    for (const quota of ['anonymous', 'api-key', 'session', 'auth', 'failed-credentials'] as const) {
      this.refusals(quota);
    }

    const verifications = new CellCounter(this.registry, {
      name: 'releases_key_verifications_total',
      help: 'API keys verified, by result: valid, the reason for a refusal, or unavailable (no answer: a 503).',
      labelNames: ['result'],
    });
    this.verifications = verifications.by<KeyVerificationResult>('result');
    for (const result of ['valid', 'unavailable'] as const) this.verifications(result);

    const passwordHashes = new CellCounter(this.registry, {
      name: 'releases_password_hashes_total',
      help: 'scrypt derivations (passwords hashed or checked, decoys included), by cost: log2 of N.',
      labelNames: ['cost'],
    });
    this.passwordHashes = passwordHashes.by<string>('cost');
  }

  request(route: string | undefined, method: string, status: number, ms: number): void {
    const name = route ?? otherRoute;
    let byMethod = this.requestSeries.get(name);
    if (byMethod === undefined) this.requestSeries.set(name, (byMethod = new Map<string, RequestSeries>()));
    let series = byMethod.get(method);
    if (series === undefined) {
      series = { byStatus: new Map(), duration: this.durations.labels({ route: name, method }) };
      byMethod.set(method, series);
    }
    let count = series.byStatus.get(status);
    if (count === undefined) {
      count = this.requests.cell({ route: name, method, status: String(status) });
      series.byStatus.set(status, count);
    }
    count.value++;
    series.duration.observe(ms / 1000);
  }

  answerCacheLookup(hit: boolean): void {
    (hit ? this.cacheHit : this.cacheMiss).value++;
  }

  rateLimitRefusal(quota: RefusedQuota): void {
    this.refusals(quota).value++;
  }

  keyVerification(result: KeyVerificationResult): void {
    this.verifications(result).value++;
  }

  passwordHash(logN: number): void {
    this.passwordHashes(String(logN)).value++;
  }

  unkeyCall(operation: UnkeyOperation, outcome: UnkeyOutcome, ms: number): void {
    this.unkeyDurations.observe({ operation, outcome }, ms / 1000);
  }

  watchPool(read: () => PoolUse | undefined): void {
    new Gauge({
      name: 'releases_db_pool_connections',
      help: 'PostgreSQL pool connections: open (total), idle, and requests waiting for one (waiting).',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const use = read();
        if (use === undefined) return;
        this.set({ state: 'total' }, use.total);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
    new Gauge({
      name: 'releases_db_pool_max_connections',
      help: 'The most connections the PostgreSQL pool opens (DATABASE_POOL_SIZE).',
      registers: [this.registry],
      collect() {
        const use = read();
        if (use !== undefined) this.set(use.max);
      },
    });
  }

  watchRateLimitStore(available: () => boolean): void {
    new Gauge({
      name: 'releases_rate_limit_store_up',
      help: '1 while the shared rate-limit store (Redis) answers; 0 while requests are served without limits (fail open).',
      registers: [this.registry],
      collect() {
        this.set(available() ? 1 : 0);
      },
    });
  }
}
