import type { Logger } from 'pino';
import { silentLogger } from '../kernel/logger.js';
import { OutageLog } from '../kernel/outage-log.js';
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
  /** Where a database outage is logged: once when it starts, once a minute while it lasts, once when it ends. */
  logger?: Logger;
}

/** Opens the database named by `DATABASE_URL` (not yet migrated): `file:...` is SQLite, `postgres://...` PostgreSQL. */
export async function openStorage(databaseUrl: string, options: OpenStorageOptions = {}): Promise<Storage> {
  const { timeoutMs, statementTimeoutMs, poolSize, catalogueIndex = true } = options;
  const outages = new OutageLog('the database', options.logger ?? silentLogger);
  if (databaseUrl.startsWith('file:')) {
    return createSqliteStorage(
      {
        filename: sqliteFilename(databaseUrl),
        outages,
        ...(statementTimeoutMs === undefined ? {} : { lockWaitMs: statementTimeoutMs }),
      },
      { catalogueIndex },
    );
  }
  return createPostgresStorage(
    {
      connectionString: databaseUrl,
      outages,
      ...(timeoutMs === undefined ? {} : { connectTimeoutMs: timeoutMs }),
      ...(statementTimeoutMs === undefined ? {} : { statementTimeoutMs }),
      ...(poolSize === undefined ? {} : { maxConnections: poolSize }),
    },
    { catalogueIndex },
  );
}

export type { Storage } from './interface.js';
