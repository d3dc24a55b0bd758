import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { StorageUnavailableError } from './errors.js';
import type { Storage } from './interface.js';
import { KyselyStorage, type Backend } from './kysely-storage.js';
import type { Database } from './schema.js';

export interface PostgresOptions {
  connectionString: string;
  /** Pool size per instance. */
  maxConnections?: number;
  /** How long a request waits for a connection before it fails with 503. */
  connectTimeoutMs?: number;
}

/** Node network errors and PostgreSQL SQLSTATEs that mean "the database is not answering". */
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

function translateError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : '';
  if (
    (typeof code === 'string' && (unavailableCodes.has(code) || code.startsWith('08'))) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|pool after calling end/i.test(
      message,
    )
  ) {
    return new StorageUnavailableError(`PostgreSQL: ${typeof code === 'string' ? code : message}`, { cause: error });
  }
  return error;
}

class PostgresBackend implements Backend {
  readonly dialect = 'postgres' as const;
  readonly db: Kysely<Database>;
  private readonly pool: pg.Pool;

  constructor(options: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection (database restart) must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: this.pool }) });
  }

  async read<Row>(query: CompiledQuery<Row>): Promise<Row[]> {
    return (await this.db.executeQuery(query)).rows;
  }

  translateError(error: unknown): unknown {
    return translateError(error);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

export function createPostgresStorage(options: PostgresOptions): Storage {
  return new KyselyStorage(new PostgresBackend(options));
}
