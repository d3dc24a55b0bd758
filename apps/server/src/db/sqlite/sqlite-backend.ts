import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type CompiledQuery, type Transaction } from 'kysely';
import { catalogueTables, withIndexesBuiltAfter, type IndexDefinition } from '../bulk-load.js';
import { BoundedCache } from '../../kernel/bounded-cache.js';
import { silentLogger } from '../../kernel/logger.js';
import { OutageLog } from '../../kernel/outage-log.js';
import { StorageConflictError, StorageUnavailableError } from '../errors.js';
import { KyselyStorage, type StorageOptions, type Backend } from '../storage.js';
import type { Database, ReleaseRow, TagRow } from '../schema.js';
import type { Storage } from '../interface.js';

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  filename: string;
  /**
   * How long a write keeps retrying while another connection (the CLI importing, another process) holds the
   * write lock, before the request fails with 503. 0: no bound. The wait is on timers, never a blocked event loop.
   */
  lockWaitMs?: number;
  /** Where unanswered calls are counted and outages logged. */
  outages?: OutageLog;
}

/** Prepared statements are reused by SQL text; the text varies only with the number of filter values. */
const statementCacheSize = 256;

/** SQLite codes that mean "cannot answer now" rather than "this request is wrong". */
const unavailableCodes = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
];

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** SQLITE_BUSY and its extended codes (`_SNAPSHOT`, `_RECOVERY`, `_TIMEOUT`): another connection is writing. */
function isBusy(error: unknown): boolean {
  return errorCode(error)?.startsWith('SQLITE_BUSY') === true;
}

function translateError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const code = errorCode(error);
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new StorageConflictError('missing-reference', `SQLite: ${code}`, { cause: error });
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new StorageConflictError('duplicate', `SQLite: ${code}`, { cause: error });
  }
  if (code !== undefined && unavailableCodes.some((prefix) => code.startsWith(prefix))) {
    return new StorageUnavailableError(`SQLite: ${code}`, { cause: error });
  }
  // After close() (shutdown), better-sqlite3 and Kysely refuse further queries: the database is gone, not the request.
  if (
    error instanceof Error &&
    /database connection is not open|driver has already been destroyed/.test(error.message)
  ) {
    return new StorageUnavailableError('SQLite: the database is closed', { cause: error });
  }
  return error;
}

/**
 * The database file holds the cursor secret and the hashes of every key and session: readable by its owner
 * only. Created empty here, 0600, before SQLite opens it; SQLite gives its -wal and -shm files the
 * database's own mode. A folder we create is 0700. (An existing file keeps the mode its operator gave it.)
 */
function createPrivately(filename: string): void {
  mkdirSync(path.dirname(path.resolve(filename)), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(filename, 'wx', 0o600));
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
}

/** How much of the database file the reader maps: SQLite's own ceiling (SQLITE_MAX_MMAP_SIZE), just under 2 GiB. */
const readerMapBytes = 0x7fff0000;

function openConnection(filename: string, options: { readonly: boolean; setupWaitMs: number }) {
  // The busy timeout covers only the setup below (at start, before any request is served)...
  const connection = new BetterSqlite3(filename, { readonly: options.readonly, timeout: options.setupWaitMs });
  if (!options.readonly) {
    connection.pragma('journal_mode = WAL');
    // With WAL, NORMAL keeps the database consistent after a crash and only risks the last commit on power loss.
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
  }
  // SQLite's own page cache, in this process's memory (the operating system caches the file besides). The
  // writer gets room for bulk imports; the reader's hot pages are the indexes' upper levels and recent pages,
  // and the server's caches above it answer repeated reads: 16 MB keeps a 1M catalogue's RSS in bounds
  // (measured with pnpm bench) without costing throughput.
  connection.pragma(`cache_size = ${options.readonly ? -16_384 : -65_536}`);
  if (options.readonly) {
    // The reader maps the file instead of copying pages into that cache with a read(2) each: a page of
    // releases walked many pages (35 reads a request on the distinct-URL bench at 100k, a fifth of the
    // server's system time), and a mapped page costs no call at all once the operating system caches it.
    // The mapped pages are the operating system's page cache, shared and given back under memory pressure,
    // not this process's memory (they show as RssFile, not RssAnon). The caveat SQLite documents: an I/O
    // error on the file surfaces as a signal rather than an error code; the writer still uses ordinary I/O.
    connection.pragma(`mmap_size = ${readerMapBytes}`);
  }
  // ...then statements never wait inside SQLite: a synchronous wait would stall every request of the process.
  // `guarded()` retries busy work on timers instead.
  connection.pragma('busy_timeout = 0');
  return connection;
}

/** How stale another process's catalogue write may look to this one's caches, at most (milliseconds). */
export const dataVersionCheckMs = 20;

/** The setup of a connection (journal mode) may wait this long for another process's lock, at start only. */
const setupWaitMs = 5_000;

/** Rows per multi-row INSERT: well under SQLite's bound-parameter limit (32,766). */
const rowsPerInsert = 200;

/** SQLite's page cache during a bulk load, in KiB (see `withBulkLoadSettings`). */
const bulkLoadCacheKib = 512 * 1024;

class SqliteBackend implements Backend {
  readonly dialect = 'sqlite' as const;
  readonly synchronousReads = true;
  readonly db: Kysely<Database>;
  readonly busyWaitMs: number;
  private readonly writer: BetterSqlite3.Database;
  private reader: BetterSqlite3.Database | undefined;
  private readonly statements = new BoundedCache<string, BetterSqlite3.Statement>({ max: statementCacheSize });
  private dataVersion: BetterSqlite3.Statement | undefined;
  private lastDataVersion: number | undefined;
  private catalogueVersionQuery: BetterSqlite3.Statement | undefined;
  private catalogueVersion: number | undefined;
  private changeCheckedAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  readonly outages: OutageLog;

  constructor(private readonly options: Required<Omit<SqliteOptions, 'outages'>> & Pick<SqliteOptions, 'outages'>) {
    this.busyWaitMs = options.lockWaitMs;
    this.outages = options.outages ?? new OutageLog('the database', silentLogger);
    if (options.filename !== ':memory:') createPrivately(options.filename);
    this.writer = openConnection(options.filename, { readonly: false, setupWaitMs });
    this.db = new Kysely<Database>({ dialect: new SqliteDialect({ database: this.writer }) });
  }

  /**
   * Reads go to their own read-only connection: WAL lets it read while any writer (this process's or
   * another's) holds the write lock, it never sees another request's open transaction, and it never queues
   * behind Kysely's single writer connection.
   */
  private readerConnection(): BetterSqlite3.Database {
    if (this.closed) throw new StorageUnavailableError('SQLite: the database is closed');
    if (this.options.filename === ':memory:') return this.writer;
    this.reader ??= openConnection(this.options.filename, { readonly: true, setupWaitMs });
    return this.reader;
  }

  async read<Row>(query: CompiledQuery<Row>): Promise<Row[]> {
    const statement = this.statements.getOrSet(query.sql, () => this.readerConnection().prepare(query.sql));
    return statement.all(...(query.parameters as unknown[])) as Row[];
  }

  /**
   * The catalogue's version as another connection (the CLI, another server) may have left it. `PRAGMA
   * data_version` on the read connection changes whenever another connection commits anything (a key's
   * last use, a session...); only then is `catalogue_state.version` read, so that only catalogue writes make
   * the caches start over. Both are statements that take the WAL read lock, a measurable part of a cached
   * page's cost, so they run at most once per `dataVersionCheckMs`: another process's write is seen within
   * that much, this process's own writes at once (they clear the caches themselves).
   */
  changeCounter(): number | undefined {
    const now = performance.now();
    if (now - this.changeCheckedAt < dataVersionCheckMs) return this.catalogueVersion;
    try {
      const reader = this.readerConnection();
      this.dataVersion ??= reader.prepare('pragma data_version').pluck();
      const dataVersion = this.dataVersion.get() as number;
      if (dataVersion !== this.lastDataVersion || this.catalogueVersion === undefined) {
        this.catalogueVersionQuery ??= reader.prepare('select version from catalogue_state where id = 1').pluck();
        this.catalogueVersion = this.catalogueVersionQuery.get() as number | undefined;
        this.lastDataVersion = dataVersion;
      }
      this.changeCheckedAt = now;
    } catch {
      // Closed, or not migrated yet: nothing cached can be vouched for; the read itself reports any failure.
      this.catalogueVersion = undefined;
    }
    return this.catalogueVersion;
  }

  isBusy(error: unknown): boolean {
    return isBusy(error);
  }

  translateError(error: unknown): unknown {
    return translateError(error);
  }

  // --- where SQLite differs ---------------------------------------------------------------------------------

  readonly clusteredTable = sql`without rowid`;
  readonly bulkLoadBatchSize = 1_000;

  migrationSchema(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  /** SQLite serializes writers, and a statement whose read snapshot went stale fails (WAL) instead of writing. */
  lockUser(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * One writer at a time already, but a transaction only asks for the write lock at its first write. Asking at
   * once (a write that changes nothing) means a busy database is met before any work is done: the retry in
   * `guarded` then starts from scratch, which matters for a bulk load, whose input is read once.
   */
  async takeCatalogueWriteTurn(trx: Transaction<Database>): Promise<void> {
    await trx
      .updateTable('catalogue_state')
      .set((eb) => ({ version: eb.ref('version') }))
      .where('id', '=', 1)
      .execute();
  }

  async insertCatalogueRows(trx: Transaction<Database>, releases: ReleaseRow[], tags: TagRow[]): Promise<void> {
    for (let i = 0; i < releases.length; i += rowsPerInsert) {
      await trx
        .insertInto('releases')
        .values(releases.slice(i, i + rowsPerInsert))
        .execute();
    }
    for (let i = 0; i < tags.length; i += rowsPerInsert) {
      await trx
        .insertInto('release_tags')
        .values(tags.slice(i, i + rowsPerInsert))
        .execute();
    }
  }

  /**
   * `release_tags` is kept in its primary key's order (a WITHOUT ROWID table): there is no index to drop, the
   * table is one. During a load into an empty catalogue its rows go to a temporary table as they come
   * (appends), and are copied over sorted at the end; the other indexes (made by CREATE INDEX) are dropped and
   * built again.
   */
  async loadIntoEmptyCatalogue<T>(
    trx: Transaction<Database>,
    load: (write: (releases: ReleaseRow[], tags: TagRow[]) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    await sql`create temp table release_tags_staged (
      kind integer not null, value_key text not null, release_date text not null, release_id text not null)`.execute(
      trx,
    );
    const { rows: indexes } = await sql<IndexDefinition>`
      select tbl_name as "table", name, 'index' as kind, sql as definition from sqlite_master
      where type = 'index' and sql is not null and tbl_name in (${sql.join(catalogueTables)})
      order by name`.execute(trx);
    return withIndexesBuiltAfter(trx, indexes, async () => {
      const result = await load(async (releases, tags) => {
        await this.insertCatalogueRows(trx, releases, []);
        for (let i = 0; i < tags.length; i += rowsPerInsert) {
          const values = tags
            .slice(i, i + rowsPerInsert)
            .map((row) => sql`(${row.kind}, ${row.value_key}, ${row.release_date}, ${row.release_id})`);
          await sql`insert into temp.release_tags_staged (kind, value_key, release_date, release_id)
            values ${sql.join(values)}`.execute(trx);
        }
      });
      await sql`insert into release_tags (kind, value_key, release_date, release_id)
        select kind, value_key, release_date, release_id from temp.release_tags_staged
        order by kind, value_key, release_date, release_id`.execute(trx);
      await sql`drop table temp.release_tags_staged`.execute(trx);
      return result;
    });
  }

  /**
   * A bigger page cache while a bulk load runs. A million releases insert their date index and tag rows in
   * random order; once those B-trees outgrow the usual 64 MB, every insert reads pages back from disk and a
   * load that started at 11 s per 100,000 releases ended at 20. Only the loading process (the CLI) holds the
   * extra memory, and only while it loads.
   */
  async withBulkLoadSettings<T>(trx: Transaction<Database>, work: () => Promise<T>): Promise<T> {
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(trx);
    const usual = rows[0]?.cache_size;
    await sql`pragma cache_size = ${sql.raw(String(-bulkLoadCacheKib))}`.execute(trx);
    try {
      return await work();
    } finally {
      if (usual !== undefined) await sql`pragma cache_size = ${sql.raw(String(usual))}`.execute(trx);
    }
  }

  /** SQLite plans from the indexes' shapes; nothing to refresh. */
  afterCatalogueWrite(): Promise<void> {
    return Promise.resolve();
  }

  /** SQLite's indexes answer without visiting the table whatever wrote them; nothing to do. */
  afterCatalogueCommit(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.dataVersion = undefined;
    this.catalogueVersionQuery = undefined;
    this.catalogueVersion = undefined;
    this.reader?.close();
    this.reader = undefined;
    await this.db.destroy();
  }
}

export function createSqliteStorage(options: SqliteOptions, storage: StorageOptions = {}): Storage {
  return new KyselyStorage(new SqliteBackend({ lockWaitMs: 5_000, ...options }), storage);
}

/** `file:<path>` → path; `file::memory:` → `:memory:`. */
export function sqliteFilename(databaseUrl: string): string {
  const rest = databaseUrl.slice('file:'.length);
  return rest === ':memory:' ? ':memory:' : rest;
}
