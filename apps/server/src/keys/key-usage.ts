import { StorageBusyError } from '../db/errors.js';
import type { ApiKeyStore } from '../db/interface.js';
import { BoundedCache } from '../kernel/bounded-cache.js';

/** `last_used_at` moves at most this often per key (SPEC §4). */
const lastUsedIntervalMs = 60_000;
/** How often pending uses are written, in one batch, unless told otherwise. */
const defaultUsageFlushIntervalMs = 5_000;
const maxTrackedKeys = 10_000;

/**
 * Records when keys are used without ever making a request wait for a write: uses are noted in memory and
 * written in one batch every few seconds, at most once a minute per key. The batch never waits for the
 * database: while another connection is writing (an import), it is kept and tried at the next flush. A batch
 * that fails otherwise (database down) is dropped and reported.
 */
export class KeyUsageRecorder {
  private readonly pending = new Map<string, string>();
  private readonly lastNoted = new BoundedCache<string, number>({ max: maxTrackedKeys });
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<ApiKeyStore, 'touch'>,
    private readonly onError: (error: unknown) => void,
    flushIntervalMs = defaultUsageFlushIntervalMs,
  ) {
    this.timer = setInterval(() => void this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  /** Notes a use at `now` (ms); `storedLastUsedAt` is what the database had when the key was read. */
  note(keyId: string, now: number, storedLastUsedAt: string | null): void {
    const last = Math.max(this.lastNoted.get(keyId) ?? 0, storedLastUsedAt ? Date.parse(storedLastUsedAt) : 0);
    if (now - last < lastUsedIntervalMs) return;
    this.lastNoted.set(keyId, now);
    this.pending.set(keyId, new Date(now).toISOString());
  }

  /** Writes what is pending. Concurrent calls share one write. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0) return Promise.resolve();
    const uses = [...this.pending].map(([id, at]) => ({ id, at }));
    this.pending.clear();
    this.flushing = this.store
      .touch(uses)
      .catch((error: unknown) => {
        if (!(error instanceof StorageBusyError)) return this.onError(error);
        // Put the batch back, unless a newer use of the same key was noted meanwhile.
        for (const use of uses) if (!this.pending.has(use.id)) this.pending.set(use.id, use.at);
      })
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
