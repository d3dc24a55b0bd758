import {
  Kysely,
  PostgresDialect,
  sql,
  type CompiledQuery,
  type Transaction,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from 'kysely';
import pg, { type QueryResultRow } from 'pg';
import { silentLogger } from '../../kernel/logger.js';
import { OutageLog } from '../../kernel/outage-log.js';
import { catalogueTables, withIndexesBuiltAfter, type IndexDefinition } from '../bulk-load.js';
import { StorageConflictError, StorageRejectedTextError, StorageUnavailableError } from '../errors.js';
import type { PoolUse } from '../../metrics/metrics.js';
import type { Storage } from '../interface.js';
import { KyselyStorage, type StorageOptions, type Backend } from '../storage.js';
import type { Database, ReleaseRow, TagRow } from '../schema.js';

export interface PostgresOptions {
  connectionString: string;
  /** Pool size per instance. */
  maxConnections?: number;
  /** How long a request waits for a connection before it fails with 503. */
  connectTimeoutMs?: number;
  /** PostgreSQL's `statement_timeout` (lock waits included); 0 turns it off. */
  statementTimeoutMs?: number;
  /** Where unanswered calls are counted and outages logged. */
  outages?: OutageLog;
}

/**
 * Node network errors and PostgreSQL SQLSTATEs that mean "the database is not answering (now)", not "this
 * request is wrong": connection exceptions (class 08), insufficient resources (53), operator intervention
 * (57: shutdown, cannot connect now, and 57014, a statement cancelled by `statement_timeout`), a database
 * that does not accept connections (55000) or does not exist (3D000, dropped or not yet restored), a lock not
 * granted in time (55P03), and a transaction that lost a deadlock or serialization race (40P01, 40001).
 */
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '55000',
  '55P03',
  '3D000',
  '40001',
  '40P01',
]);
const unavailableClasses = ['08', '53', '57'];
const unavailableMessages =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|pool after calling end|Query read timeout|connection is not queryable|Client was closed/i;

/** Text PostgreSQL cannot store: NUL (22021) and characters its encoding lacks (22P05). */
const rejectedTextCodes = new Set(['22021', '22P05']);

function translateError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  if (typeof code === 'string' && rejectedTextCodes.has(code)) {
    return new StorageRejectedTextError(`PostgreSQL: ${code}`, { cause: error });
  }
  // 23503 foreign_key_violation, 23505 unique_violation.
  if (code === '23503') return new StorageConflictError('missing-reference', `PostgreSQL: ${code}`, { cause: error });
  if (code === '23505') return new StorageConflictError('duplicate', `PostgreSQL: ${code}`, { cause: error });
  if (
    (typeof code === 'string' &&
      (unavailableCodes.has(code) || (code.length === 5 && unavailableClasses.includes(code.slice(0, 2))))) ||
    unavailableMessages.test(message)
  ) {
    return new StorageUnavailableError(`PostgreSQL: ${typeof code === 'string' ? code : message}`, { cause: error });
  }
  return error;
}

/** How much longer than `statement_timeout` the client waits for an answer before it gives the connection up. */
const clientTimeoutMarginMs = 1_000;

/**
 * The pg pool as Kysely sees it, with one addition: a client whose query got no answer at all within the
 * client-side timeout (the network or the server hangs, so not even `statement_timeout`'s cancellation
 * arrived) is destroyed on release instead of going back to the pool, where every later query would queue
 * behind the one still waiting.
 */
function poolDroppingHungClients(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let hung: Error | undefined;
      function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
      function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
      function query<R>(
        sqlOrCursor: string | PostgresCursor<R>,
        parameters?: ReadonlyArray<unknown>,
      ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
        // Kysely asks for a cursor only when the dialect is given a cursor class, which this one is not.
        if (typeof sqlOrCursor !== 'string') throw new Error('streaming queries are not used by this service');
        // Behind a hung query nothing else on this connection can run (Kysely's ROLLBACK would wait too).
        if (hung) return Promise.reject(hung);
        // pg's result is Kysely's shape with a wider `command` type; Kysely's own pg driver relies on the same.
        const result = client.query(sqlOrCursor, parameters as unknown[]) as unknown as Promise<PostgresQueryResult<R>>;
        return result.catch((error: unknown) => {
          if (error instanceof Error && error.message === 'Query read timeout') hung = error;
          throw error;
        });
      }
      return { query, release: () => client.release(hung) };
    },
    end: () => pool.end(),
  };
}

/** Rows per bulk INSERT: they travel as one JSON parameter, so the bound is memory, not parameters. */
const rowsPerInsert = 5_000;

/** How often an instance asks whether another one changed the catalogue (SPEC: visible everywhere within 5 s). */
const catalogueVersionPollMs = 1_000;
/** A version not confirmed for this long vouches for nothing (the database is unreachable): caches are bypassed. */
const catalogueVersionTrustMs = 3 * catalogueVersionPollMs;

class PostgresBackend implements Backend {
  readonly dialect = 'postgres' as const;
  readonly synchronousReads = false;
  readonly db: Kysely<Database>;
  /** PostgreSQL waits for locks itself (bounded by `statement_timeout`); nothing is retried here. */
  readonly busyWaitMs = 0;
  private readonly pool: pg.Pool;
  private catalogueVersion: { value: number; confirmedAt: number } | undefined;
  private versionPoll: NodeJS.Timeout | undefined;
  private versionPolling = false;
  private closed = false;
  /** A large catalogue write committed, or is about to: VACUUM once it has (`afterCatalogueCommit`). */
  private vacuumDue = false;

  readonly outages: OutageLog;

  constructor(options: PostgresOptions) {
    this.outages = options.outages ?? new OutageLog('the database', silentLogger);
    const statementTimeout = options.statementTimeoutMs ?? 5_000;
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      // How operators find our connections in pg_stat_activity; `?application_name=` in the URL overrides it.
      application_name: 'releases',
      connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
      idleTimeoutMillis: 30_000,
      // Dead peers (a database host that vanished) are noticed by TCP instead of never.
      keepAlive: true,
      ...(statementTimeout > 0
        ? { statement_timeout: statementTimeout, query_timeout: statementTimeout + clientTimeoutMarginMs }
        : {}),
    });
    // An idle client losing its connection (database restart) must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: poolDroppingHungClients(this.pool) }) });
  }

  async read<Row>(query: CompiledQuery<Row>): Promise<Row[]> {
    // Straight to pg's pool, which takes a client, runs the query and gives the client back, dropping it after
    // any error (so a hung one never returns to the pool either). Kysely's executor in between added a
    // connection provider, a wrapped client and two promises per read, for nothing a read needs.
    const result = await this.pool.query<Row & QueryResultRow>(query.sql, query.parameters as unknown[]);
    return result.rows;
  }

  /**
   * Another instance's catalogue write bumps `catalogue_state.version`; each instance reads it once a second
   * (from the first use, so the CLI never polls) rather than once per request. A write is therefore seen by
   * every instance's caches within about a second. A poll that fails (the database stopped answering) ends
   * the trust at once, and a version that could not be confirmed for three seconds (a poll that hangs) too:
   * cached answers outlive an outage by a second at most, then requests meet it and get their 503. One small
   * indexed read per second per instance; works on anything that speaks PostgreSQL's protocol (no LISTEN/NOTIFY
   * needed).
   */
  changeCounter(): number | undefined {
    if (this.versionPoll === undefined && !this.closed) {
      this.versionPoll = setInterval(() => void this.pollCatalogueVersion(), catalogueVersionPollMs).unref();
      void this.pollCatalogueVersion();
    }
    const known = this.catalogueVersion;
    if (known === undefined || performance.now() - known.confirmedAt > catalogueVersionTrustMs) return undefined;
    return known.value;
  }

  private async pollCatalogueVersion(): Promise<void> {
    if (this.versionPolling) return;
    this.versionPolling = true;
    try {
      const result = await this.pool.query<{ version: string | number }>(
        'select version from catalogue_state where id = 1',
      );
      const version = result.rows[0]?.version;
      if (version !== undefined) this.catalogueVersion = { value: Number(version), confirmedAt: performance.now() };
    } catch {
      // Unanswered: nothing cached is vouched for until it answers again; requests read the database (and
      // report its outage) meanwhile.
      this.catalogueVersion = undefined;
    } finally {
      this.versionPolling = false;
    }
  }

  isBusy(): boolean {
    return false;
  }

  poolUse(): PoolUse {
    const { totalCount, idleCount, waitingCount, options } = this.pool;
    return { total: totalCount, idle: idleCount, waiting: waitingCount, max: options.max ?? 10 };
  }

  translateError(error: unknown): unknown {
    return translateError(error);
  }

  // --- where PostgreSQL differs -----------------------------------------------------------------------------

  readonly clusteredTable = sql``;
  readonly bulkLoadBatchSize = rowsPerInsert;

  async migrationSchema(): Promise<string | undefined> {
    return (await sql<{ schema: string }>`select current_schema() as schema`.execute(this.db)).rows[0]?.schema;
  }

  /** Under READ COMMITTED two concurrent writes would both read the old state: they take turns on the row. */
  async lockUser(trx: Transaction<Database>, userId: string): Promise<void> {
    await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
  }

  /**
   * Facet counts are recounted from `release_tags` inside each catalogue write; under READ COMMITTED, a recount
   * that waited for another import's row lock would still count from its own older snapshot and overwrite the
   * other's total (two imports of 40 and 30 releases left a count of 41 instead of 71). A transaction-scoped
   * advisory lock, per schema, makes the second import start after the first commits, every statement of it
   * then seeing the first's rows.
   */
  async takeCatalogueWriteTurn(trx: Transaction<Database>): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended('releases:catalogue-writes:' || current_schema(), 0))`.execute(
      trx,
    );
  }

  /**
   * Thousands of rows per statement, sent as one JSON text parameter that the server turns back into rows
   * (`json_to_recordset`), instead of a parameter per value (which caps a statement at 65,535 values, so at a
   * few hundred rows). JSON.stringify is native: per-value escaping in JavaScript (array literals) cost more
   * than the inserts themselves, most of it in garbage collection.
   */
  async insertCatalogueRows(trx: Transaction<Database>, releases: ReleaseRow[], tags: TagRow[]): Promise<void> {
    for (let i = 0; i < releases.length; i += rowsPerInsert) {
      const rows = JSON.stringify(releases.slice(i, i + rowsPerInsert));
      await sql`insert into releases (id, title, artist, release_date, release_type, track_count, cover_url, created_at, updated_at,
          doc, search_title, search_artist)
        select id, title, artist, release_date, release_type, track_count, cover_url, created_at, updated_at, doc,
          search_title, search_artist
        from json_to_recordset(${rows}::json) as r(id text, title text, artist text, release_date text, release_type text,
          track_count integer, cover_url text, created_at text, updated_at text, doc text, search_title text,
          search_artist text)`.execute(trx);
    }
    for (let i = 0; i < tags.length; i += rowsPerInsert) {
      const rows = JSON.stringify(tags.slice(i, i + rowsPerInsert));
      await sql`insert into release_tags (kind, value_key, release_date, release_id)
        select kind, value_key, release_date, release_id
        from json_to_recordset(${rows}::json) as t(kind integer, value_key text, release_date text, release_id text)`.execute(
        trx,
      );
    }
  }

  /** Every index and primary key of the catalogue tables is dropped, then built again from the loaded rows. */
  async loadIntoEmptyCatalogue<T>(
    trx: Transaction<Database>,
    load: (write: (releases: ReleaseRow[], tags: TagRow[]) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const { rows: indexes } = await sql<IndexDefinition>`
      select t.relname as "table", i.relname as name,
        case when c.oid is null then 'index' else 'constraint' end as kind,
        coalesce(pg_get_constraintdef(c.oid), pg_get_indexdef(i.oid)) as definition
      from pg_index x
        join pg_class i on i.oid = x.indexrelid
        join pg_class t on t.oid = x.indrelid
        left join pg_constraint c on c.conindid = i.oid and c.conrelid = t.oid
      where t.relnamespace = current_schema()::regnamespace and t.relname in (${sql.join(catalogueTables)})
      order by i.relname`.execute(trx);
    return withIndexesBuiltAfter(trx, indexes, async () => {
      const result = await load((releases, tags) => this.insertCatalogueRows(trx, releases, tags));
      // Sorting a few million index entries in memory rather than in temporary files, for this transaction only.
      await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
      return result;
    });
  }

  withBulkLoadSettings<T>(_trx: Transaction<Database>, work: () => Promise<T>): Promise<T> {
    return work();
  }

  /**
   * PostgreSQL plans each filter from its statistics, and a table never analysed is estimated at a handful of
   * rows: a two-filter page on 100k releases then took 114 s instead of 1 ms (a nested loop over everything).
   * Autovacuum analyses in time when it runs, but it may be off or behind after a large import, so a write
   * that changed more than autovacuum's own threshold (50 rows + 10% of the table, counting what earlier
   * writes changed since the last ANALYZE) analyses the catalogue tables itself, in its transaction.
   */
  async afterCatalogueWrite(trx: Transaction<Database>, releasesWritten: number): Promise<void> {
    if (releasesWritten === 0) return;
    const { rows } = await sql<{ reltuples: number | string; modified: number | string | null }>`
      select c.reltuples, s.n_mod_since_analyze as modified
      from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
      where c.oid = 'releases'::regclass`.execute(trx);
    const tuples = Number(rows[0]?.reltuples ?? -1);
    const modified = Number(rows[0]?.modified ?? 0) + releasesWritten;
    if (tuples >= 0 && modified <= 50 + 0.1 * tuples) return;
    // `release_tags.value_key` holds the filters' values among many more search keys: with the default sample
    // the filters' values fall out of its most common values, and at a million releases a genre of 72,208 rows
    // was estimated at 752, so the planner probed a whole filter range instead of walking a term's (1.4 s).
    // A larger sample and statistics on (kind, value_key) together keep them in view (53 ms, bench/RESULTS.md).
    // Both are idempotent and take only a light lock.
    await sql`alter table release_tags alter column value_key set statistics 1000`.execute(trx);
    await sql`create statistics if not exists release_tags_kind_value (mcv) on kind, value_key from release_tags`.execute(
      trx,
    );
    await sql`analyze releases, release_tags, facet_values`.execute(trx);
    this.vacuumDue = true;
  }

  /**
   * After a large write (the one that analysed, above): VACUUM, for the same reason. The page queries read
   * `release_tags` by index only, and PostgreSQL can skip the table only for pages its visibility map marks
   * all-visible, which only VACUUM does. Without it, every index entry is checked against the table: with
   * autovacuum off (as on this machine's PostgreSQL), a freshly imported 100k catalogue answered the bench's
   * distinct date pages at 842 req/s (the same-SQL reference; 746 ours), and at 2,414 (1,973) once vacuumed.
   * It runs outside the transaction (VACUUM cannot run in one), takes no lock that stops reads or writes, and
   * takes about 3 s per 100k releases. The write has committed: a VACUUM that fails is left to autovacuum or
   * the next large write.
   */
  async afterCatalogueCommit(): Promise<void> {
    if (!this.vacuumDue) return;
    this.vacuumDue = false;
    try {
      await sql`vacuum releases, release_tags, facet_values`.execute(this.db);
    } catch {
      // See above: nothing is lost.
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.versionPoll);
    this.versionPoll = undefined;
    await this.db.destroy();
  }
}

export function createPostgresStorage(options: PostgresOptions, storage: StorageOptions = {}): Storage {
  return new KyselyStorage(new PostgresBackend(options), storage);
}
