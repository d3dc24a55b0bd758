import type { Storage } from './interface.js';
import { createPostgresStorage } from './postgres.js';
import { createSqliteStorage, sqliteFilename } from './sqlite.js';

export interface OpenStorageOptions {
  /** SQLite: how long to wait for a lock. PostgreSQL: how long to wait for a connection. */
  timeoutMs?: number;
}

/** Opens the database named by `DATABASE_URL` (not yet migrated): `file:...` is SQLite, `postgres://...` PostgreSQL. */
export async function openStorage(databaseUrl: string, options: OpenStorageOptions = {}): Promise<Storage> {
  const timeout = options.timeoutMs;
  if (databaseUrl.startsWith('file:')) {
    return createSqliteStorage({
      filename: sqliteFilename(databaseUrl),
      ...(timeout === undefined ? {} : { busyTimeoutMs: timeout }),
    });
  }
  return createPostgresStorage({
    connectionString: databaseUrl,
    ...(timeout === undefined ? {} : { connectTimeoutMs: timeout }),
  });
}

export type { Storage } from './interface.js';
