import type { Storage } from './interface.js';
import { createPostgresStorage } from './postgres/postgres-backend.js';
import { createSqliteStorage, sqliteFilename } from './sqlite/sqlite-backend.js';

export interface OpenStorageOptions {
  /** PostgreSQL: how long to wait for a connection. */
  timeoutMs?: number;
  /**
   * The longest one statement may take, waiting for locks included (`DATABASE_STATEMENT_TIMEOUT`):
   * PostgreSQL's `statement_timeout`, and for SQLite the wait for another connection's write lock.
   * 0: no bound (the CLI's long imports).
   */
  statementTimeoutMs?: number;
  /** PostgreSQL: connections in the pool (`DATABASE_POOL_SIZE`). */
  poolSize?: number;
  /**
   * Whether catalogue reads keep the catalogue in memory (`CatalogueIndex`) for queries and facets in context
   * (`CATALOGUE_IN_MEMORY`); off, every read is the database's (tests compare the two).
   */
  catalogueIndex?: boolean;
}

/** Opens the database named by `DATABASE_URL` (not yet migrated): `file:...` is SQLite, `postgres://...` PostgreSQL. */
export async function openStorage(databaseUrl: string, options: OpenStorageOptions = {}): Promise<Storage> {
  const { timeoutMs, statementTimeoutMs, poolSize, catalogueIndex = true } = options;
  if (databaseUrl.startsWith('file:')) {
    return createSqliteStorage(
      {
        filename: sqliteFilename(databaseUrl),
        ...(statementTimeoutMs === undefined ? {} : { lockWaitMs: statementTimeoutMs }),
      },
      { catalogueIndex },
    );
  }
  return createPostgresStorage(
    {
      connectionString: databaseUrl,
      ...(timeoutMs === undefined ? {} : { connectTimeoutMs: timeoutMs }),
      ...(statementTimeoutMs === undefined ? {} : { statementTimeoutMs }),
      ...(poolSize === undefined ? {} : { maxConnections: poolSize }),
    },
    { catalogueIndex },
  );
}

export type { Storage } from './interface.js';
