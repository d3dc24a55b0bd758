import { setTimeout as delay } from 'node:timers/promises';
import type { CompiledQuery, Kysely } from 'kysely';
import { StorageBusyError } from './errors.js';
import type { Database } from './schema.js';

/** What a database backend (`sqlite.ts`, `postgres.ts`) gives the shared Kysely implementation. */
export interface Backend {
  readonly dialect: 'sqlite' | 'postgres';
  /** Writes (and migrations). Reads go through `read`, so they never queue behind a write. */
  readonly db: Kysely<Database>;
  /**
   * Runs a compiled read. SQLite: on a read-only connection of its own (WAL lets it read while any writer
   * writes) through cached prepared statements; PostgreSQL: on the pool.
   */
  read<Row>(query: CompiledQuery<Row>): Promise<Row[]>;
  /**
   * A number that changes whenever another connection (the CLI, another instance) has changed the catalogue,
   * read without waiting on the database, or undefined when the backend cannot vouch for it right now. Caches
   * of catalogue reads are used only while it stays the same; this connection's own writes clear them directly.
   * How fresh it is, is the backend's promise: see `sqlite.ts` and `postgres.ts`.
   */
  changeCounter(): number | undefined;
  /**
   * Whether a statement failed only because another connection holds the write lock (SQLite's SQLITE_BUSY),
   * so the same work can simply be tried again. PostgreSQL waits for locks itself, bounded by its
   * statement timeout.
   */
  isBusy(error: unknown): boolean;
  /** How long work keeps being retried while the database is busy (0: no bound). */
  readonly busyWaitMs: number;
  /** Maps a driver error to `StorageUnavailableError` when it means "the database is not answering". */
  translateError(error: unknown): unknown;
  close(): Promise<void>;
}

export interface GuardOptions {
  /**
   * `wait` (the default): while another connection holds the write lock, try again after a short pause, up
   * to the backend's bound. `skip`: give up at once with `StorageBusyError`, for writes that can be done
   * later instead (the API keys' last-use times).
   */
  whenBusy?: 'wait' | 'skip';
}

/** The first pause between attempts on a busy database, doubled each time up to `maxBusyPauseMs`. */
const firstBusyPauseMs = 2;
const maxBusyPauseMs = 50;

/**
 * Runs storage work so that driver failures surface as `StorageUnavailableError`, and work refused because
 * another connection is writing is retried. better-sqlite3 is synchronous: its own busy timeout would hold
 * the event loop (every request of the process) while it waits for the lock, so the connections wait for
 * nothing and the waiting happens here, between attempts, on timers. `work` must be safe to run again after
 * a busy failure: one statement, or one transaction (rolled back by then).
 */
export async function guarded<T>(backend: Backend, work: () => Promise<T>, options: GuardOptions = {}): Promise<T> {
  const started = Date.now();
  let pause = firstBusyPauseMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!backend.isBusy(error)) throw backend.translateError(error);
      if (options.whenBusy === 'skip') {
        throw new StorageBusyError('the database is busy with another write', { cause: error });
      }
      if (backend.busyWaitMs > 0 && Date.now() - started + pause > backend.busyWaitMs) {
        throw new StorageBusyError(`another write held the database for over ${backend.busyWaitMs} ms`, {
          cause: error,
        });
      }
      await delay(pause);
      pause = Math.min(pause * 2, maxBusyPauseMs);
    }
  }
}
