import { mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { StorageUnavailableError } from './errors.js';
import { KyselyStorage, type Backend } from './kysely-storage.js';
import type { Database } from './schema.js';
import type { Storage } from './interface.js';

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  filename: string;
  /** How long a statement waits for a lock before the request fails with 503. */
  busyTimeoutMs?: number;
}

/** Prepared statements are reused by SQL text; the text varies only with the number of filter values. */
const statementCacheSize = 256;

/** SQLite codes that mean "cannot answer now" rather than "this request is wrong". */
const unavailableCodes = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
]);

function translateError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && [...unavailableCodes].some((prefix) => code.startsWith(prefix))) {
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

function openConnection(filename: string, options: { readonly: boolean; busyTimeoutMs: number }) {
  const connection = new BetterSqlite3(filename, { readonly: options.readonly, timeout: options.busyTimeoutMs });
  if (!options.readonly) {
    connection.pragma('journal_mode = WAL');
    // With WAL, NORMAL keeps the database consistent after a crash and only risks the last commit on power loss.
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
  }
  connection.pragma('cache_size = -65536');
  return connection;
}

class SqliteBackend implements Backend {
  readonly dialect = 'sqlite' as const;
  readonly db: Kysely<Database>;
  private readonly writer: BetterSqlite3.Database;
  private reader: BetterSqlite3.Database | undefined;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private dataVersion: BetterSqlite3.Statement | undefined;
  private closed = false;

  constructor(private readonly options: Required<SqliteOptions>) {
    if (options.filename !== ':memory:') mkdirSync(path.dirname(path.resolve(options.filename)), { recursive: true });
    this.writer = openConnection(options.filename, { readonly: false, busyTimeoutMs: options.busyTimeoutMs });
    this.db = new Kysely<Database>({ dialect: new SqliteDialect({ database: this.writer }) });
  }

  /**
   * Hot-path reads go to their own read-only connection (WAL lets it read while the writer writes, and it
   * never sees another request's open transaction) through cached prepared statements.
   */
  private readerConnection(): BetterSqlite3.Database {
    if (this.closed) throw new StorageUnavailableError('SQLite: the database is closed');
    if (this.options.filename === ':memory:') return this.writer;
    this.reader ??= openConnection(this.options.filename, {
      readonly: true,
      busyTimeoutMs: this.options.busyTimeoutMs,
    });
    return this.reader;
  }

  async read<Row>(query: CompiledQuery<Row>): Promise<Row[]> {
    let statement = this.statements.get(query.sql);
    if (!statement) {
      statement = this.readerConnection().prepare(query.sql);
      if (this.statements.size >= statementCacheSize) {
        const oldest = this.statements.keys().next().value;
        if (oldest !== undefined) this.statements.delete(oldest);
      }
      this.statements.set(query.sql, statement);
    }
    return statement.all(...(query.parameters as unknown[])) as Row[];
  }

  /**
   * `PRAGMA data_version` on the read connection changes whenever another connection (this process's writer,
   * the CLI, another server) commits. With one shared in-memory connection there is no other connection, and
   * the storage clears its caches on its own writes instead.
   */
  changeCounter(): number {
    this.dataVersion ??= this.readerConnection().prepare('pragma data_version').pluck();
    return this.dataVersion.get() as number;
  }

  translateError(error: unknown): unknown {
    return translateError(error);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.dataVersion = undefined;
    this.reader?.close();
    this.reader = undefined;
    await this.db.destroy();
  }
}

export function createSqliteStorage(options: SqliteOptions): Storage {
  return new KyselyStorage(new SqliteBackend({ busyTimeoutMs: 2_000, ...options }));
}

/** `file:<path>` → path; `file::memory:` → `:memory:`. */
export function sqliteFilename(databaseUrl: string): string {
  const rest = databaseUrl.slice('file:'.length);
  return rest === ':memory:' ? ':memory:' : rest;
}
