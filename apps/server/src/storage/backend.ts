import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What a database backend (`sqlite.ts`, `postgres.ts`) gives the shared Kysely implementation. */
export interface Backend {
  readonly dialect: 'sqlite' | 'postgres';
  readonly db: Kysely<Database>;
  /** Runs a compiled read on the hot path (the SQLite backend reuses prepared statements). */
  read<Row>(query: CompiledQuery<Row>): Promise<Row[]>;
  /**
   * A number that changes whenever any connection commits to the database, read without a query, or
   * undefined when the backend cannot tell cheaply. Pages are cached only while it stays the same.
   */
  changeCounter?(): number;
  /** Maps a driver error to `StorageUnavailableError` when it means "the database is not answering". */
  translateError(error: unknown): unknown;
  close(): Promise<void>;
}

/** Runs storage work so that driver failures surface as `StorageUnavailableError`. */
export async function guarded<T>(backend: Backend, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw backend.translateError(error);
  }
}
