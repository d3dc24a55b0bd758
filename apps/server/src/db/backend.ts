import type { CompiledQuery, Kysely, RawBuilder, Transaction } from 'kysely';
import { retryWhile } from '../kernel/deadline.js';
import type { OutageLog } from '../kernel/outage-log.js';
import { StorageBusyError, StorageUnavailableError } from './errors.js';
import type { PoolUse } from '../metrics/metrics.js';
import type { Database, ReleaseRow, TagRow } from './schema.js';

/**
 * What a database backend (`sqlite.ts`, `postgres.ts`) gives the shared Kysely implementation: connections,
 * and every way the two databases differ, so that nothing else in `db/` asks which one it is on.
 */
export interface Backend {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Reads run on this thread (SQLite): a long one holds every other request of the process until it ends, so
   * long work is cut into parts with turns for the others in between.
   */
  readonly synchronousReads: boolean;
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
  /** Where each unanswered call is counted, and an outage logged once (`kernel/outage-log.ts`). */
  readonly outages: OutageLog;
  /** The connection pool's use (PostgreSQL); absent where there is no pool. */
  poolUse?(): PoolUse;
  close(): Promise<void>;

  // --- where the two databases differ ---------------------------------------------------------------------

  /** DDL after a table's definition that keeps its rows in primary-key order (SQLite's `WITHOUT ROWID`). */
  readonly clusteredTable: RawBuilder<unknown>;
  /**
   * The schema Kysely keeps its migration bookkeeping in, where the database has schemas: named, so several
   * databases in one PostgreSQL server (schemas on the search_path) never mistake each other's.
   */
  migrationSchema(): Promise<string | undefined>;
  /**
   * Holds the user's row until the transaction ends, so concurrent writes about one user take turns (a
   * PostgreSQL row lock; SQLite serializes writers already, and a statement whose snapshot went stale fails).
   */
  lockUser(trx: Transaction<Database>, userId: string): Promise<void>;
  /** Catalogue writes take turns, and take them first thing in their transaction (see the backends). */
  takeCatalogueWriteTurn(trx: Transaction<Database>): Promise<void>;
  /** Inserts releases and their tag rows, as many per statement as suits the database. */
  insertCatalogueRows(trx: Transaction<Database>, releases: ReleaseRow[], tags: TagRow[]): Promise<void>;
  /** How many releases a bulk load reads and writes at a time. */
  readonly bulkLoadBatchSize: number;
  /**
   * A bulk load into an empty catalogue, the way the database's manual advises: `load` writes every batch
   * through `write`, with the catalogue's indexes built after it (see `bulk-load.ts`), and with whatever
   * settings make a load fast on this database, for this transaction only.
   */
  loadIntoEmptyCatalogue<T>(
    trx: Transaction<Database>,
    load: (write: (releases: ReleaseRow[], tags: TagRow[]) => Promise<void>) => Promise<T>,
  ): Promise<T>;
  /** A bulk load into a catalogue that has releases: `work`, with the settings that make a load fast. */
  withBulkLoadSettings<T>(trx: Transaction<Database>, work: () => Promise<T>): Promise<T>;
  /** After a catalogue write of `releasesWritten` releases: keeps the query planner's statistics fresh. */
  afterCatalogueWrite(trx: Transaction<Database>, releasesWritten: number): Promise<void>;
  /** After a catalogue write committed: the upkeep that cannot run inside a transaction. Never throws. */
  afterCatalogueCommit(): Promise<void>;
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
  const skip = options.whenBusy === 'skip';
  try {
    const result = await retryWhile(work, {
      retryable: (error) => !skip && backend.isBusy(error),
      timeoutMs: backend.busyWaitMs,
      firstPauseMs: firstBusyPauseMs,
      maxPauseMs: maxBusyPauseMs,
      timedOut: (error) =>
        new StorageBusyError(`another write held the database for over ${backend.busyWaitMs} ms`, { cause: error }),
    });
    backend.outages.answered();
    return result;
  } catch (error) {
    if (skip && backend.isBusy(error)) {
      // Deferred work gives up its turn: not an outage.
      throw new StorageBusyError('the database is busy with another write', { cause: error });
    }
    const translated = error instanceof StorageBusyError ? error : backend.translateError(error);
    if (translated instanceof StorageUnavailableError) backend.outages.failed(translated);
    throw translated;
  }
}
