import type { Logger } from 'pino';

/** While a dependency stays down, at most one line per this long (SPEC §10: once a minute). */
const defaultIntervalMs = 60_000;

/**
 * What the logs say about a dependency (the database, the key manager, Redis, the mail server) that stops
 * answering: one line when the outage starts (with the error), then at most one a minute with how many calls
 * failed meanwhile, and one when it answers again (how long it was down, how many calls failed in all). Every
 * failed call is counted; none writes a line of its own (a database outage under load wrote 1,916 stacks in
 * 20 s, issue 30).
 *
 * The code that calls the dependency reports each outcome: `failed` when it did not answer, `answered` when it
 * did (a boolean test while nothing is wrong).
 */
export class OutageLog {
  private since: number | undefined;
  private lastLine = 0;
  private failedSinceLine = 0;
  private failedInAll = 0;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly dependency: string,
    private readonly logger: Logger,
    options: { intervalMs?: number; now?: () => number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? defaultIntervalMs;
    this.now = options.now ?? Date.now;
  }

  /** Whether the dependency is down, as far as its last outcome says. */
  get down(): boolean {
    return this.since !== undefined;
  }

  /** A call to the dependency got no usable answer. */
  failed(error: unknown): void {
    const now = this.now();
    this.failedInAll++;
    if (this.since === undefined) {
      this.since = now;
      this.lastLine = now;
      this.failedSinceLine = 0;
      this.logger.error({ err: error, dependency: this.dependency }, `${this.dependency} is not answering`);
      return;
    }
    this.failedSinceLine++;
    if (now - this.lastLine < this.intervalMs) return;
    this.logger.warn(
      {
        dependency: this.dependency,
        failed: this.failedSinceLine,
        downForSeconds: Math.round((now - this.since) / 1000),
        reason: error instanceof Error ? error.message : String(error),
      },
      `${this.dependency} is still not answering`,
    );
    this.lastLine = now;
    this.failedSinceLine = 0;
  }

  /** A call to the dependency was answered. */
  answered(): void {
    if (this.since === undefined) return;
    this.logger.info(
      {
        dependency: this.dependency,
        downForSeconds: Math.round((this.now() - this.since) / 1000),
        failed: this.failedInAll,
      },
      `${this.dependency} answers again`,
    );
    this.since = undefined;
    this.failedInAll = 0;
  }
}
