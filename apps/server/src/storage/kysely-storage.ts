import { randomBytes } from 'node:crypto';
import type { Facets, FacetValue, ParsedReleaseInput, Release } from '@releases/contract';
import { Migrator, sql, type CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type {
  ApiKeyRecord,
  ReleasePage,
  ReleasePageRequest,
  SessionRecord,
  Storage,
  UpsertResult,
  UserRecord,
} from './interface.js';
import { migrationProvider } from './migrations.js';
import { buildReleasePageQuery, type PageRow, type TagStatistics } from './release-query.js';
import { tagKinds, type ApiKeysTable, type Database } from './schema.js';

/** Rows per multi-row INSERT: well under both dialects' bound-parameter limits. */
const insertBatchSize = 200;
/** How long planner statistics may be reused before they are read again. */
const statisticsTtlMs = 2_000;
/** Pages kept in memory (about 10 KB each at the default page size). */
const pageCacheSize = 2_000;

type Executor = Kysely<Database> | Transaction<Database>;

/** What a backend adds to the shared Kysely implementation. */
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

/** The serialized form a release is stored and served in; field order is the documented one. */
export function releaseDocument(release: ParsedReleaseInput, createdAt: string, updatedAt: string): string {
  const record: Release = {
    id: release.id,
    title: release.title,
    artist: release.artist,
    release_date: release.release_date,
    release_type: release.release_type,
    vocaloid_banks: release.vocaloid_banks,
    genres: release.genres,
    languages: release.languages,
    track_count: release.track_count,
    cover_url: release.cover_url,
    links: release.links.map((link) => ({ site: link.site, url: link.url })),
    created_at: createdAt,
    updated_at: updatedAt,
  };
  return JSON.stringify(record);
}

/** The display spelling of a language tag (`zh-hans` → `zh-Hans`). Input was validated already. */
function canonicalLanguage(tag: string): string {
  return Intl.getCanonicalLocales(tag)[0] ?? tag;
}

interface TagRow {
  kind: number;
  value_key: string;
  display: string;
}

function tagsOf(release: ParsedReleaseInput): TagRow[] {
  const rows: TagRow[] = [];
  const seen = new Set<string>();
  const add = (kind: number, display: string) => {
    const valueKey = display.toLowerCase();
    const id = `${kind}:${valueKey}`;
    if (seen.has(id)) return;
    seen.add(id);
    rows.push({ kind, value_key: valueKey, display });
  };
  for (const bank of release.vocaloid_banks) add(tagKinds.vocaloid_banks, bank);
  for (const genre of release.genres) add(tagKinds.genres, genre);
  for (const language of release.languages) add(tagKinds.languages, language);
  return rows;
}

/** Normalizes what is stored: canonical language tags, so the document and the index agree. */
function normalizeRelease(release: ParsedReleaseInput): ParsedReleaseInput {
  return { ...release, languages: release.languages.map(canonicalLanguage) };
}

function toApiKeyRecord(row: ApiKeysTable): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    ownerId: row.owner_id,
    keyHash: row.key_hash,
    displayStart: row.display_start,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export class KyselyStorage implements Storage {
  readonly dialect: 'sqlite' | 'postgres';
  private readonly db: Kysely<Database>;
  private statistics: { stats: TagStatistics; readAt: number } | undefined;
  private statisticsLoad: Promise<TagStatistics> | undefined;
  private readonly secrets = new Map<string, string>();
  private readonly pageCache = new Map<string, ReleasePage>();
  private pageCacheStamp: number | undefined;

  constructor(private readonly backend: Backend) {
    this.dialect = backend.dialect;
    this.db = backend.db;
  }

  /** Every public method runs through here so driver failures surface as `StorageUnavailableError`. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.backend.translateError(error);
    }
  }

  async migrate(): Promise<void> {
    // Kysely looks for its bookkeeping tables in every schema unless told which: name ours, so several
    // databases in one PostgreSQL server (schemas on the search_path) never mistake each other's.
    const schema =
      this.dialect === 'postgres'
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(this.db)).rows[0]?.schema
        : undefined;
    const migrator = new Migrator({
      db: this.db,
      provider: migrationProvider(this.dialect),
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((result) => result.status === 'Error');
      throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed`, { cause: error });
    }
  }

  ping(): Promise<void> {
    return this.guard(async () => {
      await this.backend.read(sql`select 1 as ok`.compile(this.db));
    });
  }

  close(): Promise<void> {
    return this.backend.close();
  }

  // --- catalogue ---------------------------------------------------------------------------------------

  private async tagStatistics(): Promise<TagStatistics> {
    const now = Date.now();
    if (this.statistics && now - this.statistics.readAt < statisticsTtlMs) return this.statistics.stats;
    this.statisticsLoad ??= (async () => {
      try {
        const rows = await this.db.selectFrom('facet_values').select(['kind', 'value_key', 'release_count']).execute();
        const stats = new Map<number, Map<string, number>>();
        for (const row of rows) {
          let perKind = stats.get(row.kind);
          if (!perKind) stats.set(row.kind, (perKind = new Map<string, number>()));
          perKind.set(row.value_key, row.release_count);
        }
        this.statistics = { stats, readAt: Date.now() };
        return stats;
      } finally {
        this.statisticsLoad = undefined;
      }
    })();
    return this.statisticsLoad;
  }

  /**
   * Recently served pages, valid while the database has not changed since they were read (checked on every
   * call, so a write from any process or instance is seen at once). Hot pages then cost no query at all.
   */
  private cachedPage(request: ReleasePageRequest): { key: string; page: ReleasePage | undefined } | undefined {
    const stamp = this.backend.changeCounter?.();
    if (stamp === undefined) return undefined;
    if (stamp !== this.pageCacheStamp) {
      this.pageCache.clear();
      this.pageCacheStamp = stamp;
    }
    const { filters, sort, limit, after } = request;
    const key = `${sort}|${limit}|${after ? `${after.releaseDate}|${after.id}` : ''}|${filters.vocaloid_banks.join(',')}|${filters.genres.join(',')}|${filters.languages.join(',')}`;
    return { key, page: this.pageCache.get(key) };
  }

  listReleases(request: ReleasePageRequest): Promise<ReleasePage> {
    return this.guard(async () => {
      const cached = this.cachedPage(request);
      if (cached?.page) return cached.page;
      const page = await this.queryPage(request);
      if (cached) {
        if (this.pageCache.size >= pageCacheSize) this.pageCache.delete(this.pageCache.keys().next().value!);
        this.pageCache.set(cached.key, page);
      }
      return page;
    });
  }

  private async queryPage(request: ReleasePageRequest): Promise<ReleasePage> {
    {
      const stats = await this.tagStatistics();
      const rows = await this.backend.read<PageRow>(buildReleasePageQuery(request, stats).compile(this.db));
      const hasMore = rows.length > request.limit;
      const page = hasMore ? rows.slice(0, request.limit) : rows;
      const last = page[page.length - 1];
      return {
        releaseJson: page.map((row) => row.doc),
        next: hasMore && last ? { releaseDate: last.release_date, id: last.id } : undefined,
      };
    }
  }

  getReleaseJson(id: string): Promise<string | undefined> {
    return this.guard(async () => {
      const rows = await this.backend.read<{ doc: string }>(
        this.db.selectFrom('releases').select('doc').where('id', '=', id).compile(),
      );
      return rows[0]?.doc;
    });
  }

  facets(): Promise<Omit<Facets, 'generated_at'>> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom('facet_values')
        .select(['kind', 'display', 'release_count'])
        .where('release_count', '>', 0)
        .orderBy('release_count', 'desc')
        .orderBy('value_key', 'asc')
        .execute();
      const byKind = (kind: number): FacetValue[] =>
        rows.filter((row) => row.kind === kind).map((row) => ({ value: row.display, count: row.release_count }));
      return {
        vocaloid_banks: byKind(tagKinds.vocaloid_banks),
        genres: byKind(tagKinds.genres),
        languages: byKind(tagKinds.languages),
      };
    });
  }

  countReleases(): Promise<number> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('releases')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    });
  }

  catalogueVersion(): Promise<number> {
    return this.guard(async () => {
      const rows = await this.backend.read<{ version: number | string }>(
        this.db.selectFrom('catalogue_state').select('version').where('id', '=', 1).compile(),
      );
      return Number(rows[0]?.version ?? 0);
    });
  }

  upsertReleases(releases: ParsedReleaseInput[], now: Date): Promise<UpsertResult> {
    return this.guard(() =>
      this.db.transaction().execute(async (trx) => {
        const stamp = now.toISOString();
        const normalized = releases.map(normalizeRelease);
        const existing = new Map<string, string>();
        for (let i = 0; i < normalized.length; i += insertBatchSize) {
          const ids = normalized.slice(i, i + insertBatchSize).map((release) => release.id);
          const rows = await trx.selectFrom('releases').select(['id', 'created_at']).where('id', 'in', ids).execute();
          for (const row of rows) existing.set(row.id, row.created_at);
        }
        const touchedKeys = new Map<string, { kind: number; value_key: string }>();
        if (existing.size > 0) {
          const ids = [...existing.keys()];
          for (let i = 0; i < ids.length; i += insertBatchSize) {
            const batch = ids.slice(i, i + insertBatchSize);
            const oldTags = await trx
              .selectFrom('release_tags')
              .select(['kind', 'value_key'])
              .where('release_id', 'in', batch)
              .execute();
            for (const tag of oldTags) touchedKeys.set(`${tag.kind}:${tag.value_key}`, tag);
            await trx.deleteFrom('release_tags').where('release_id', 'in', batch).execute();
            await trx.deleteFrom('releases').where('id', 'in', batch).execute();
          }
        }
        // Later rows with the same id win, as an upsert of a file read top to bottom should.
        const latest = new Map(normalized.map((release) => [release.id, release]));
        const written = await this.insertReleases(trx, [...latest.values()], stamp, (id) => existing.get(id) ?? stamp);
        for (const tag of written) touchedKeys.set(`${tag.kind}:${tag.value_key}`, tag);
        await this.recountFacets(trx, [...touchedKeys.values()]);
        await this.bumpCatalogueVersion(trx, stamp);
        const updated = [...latest.keys()].filter((id) => existing.has(id)).length;
        return { inserted: latest.size - updated, updated };
      }),
    );
  }

  loadReleases(
    releases: Iterable<ParsedReleaseInput>,
    now: Date,
    onProgress?: (done: number) => void,
  ): Promise<number> {
    return this.guard(() =>
      this.db.transaction().execute(async (trx) => {
        const stamp = now.toISOString();
        let done = 0;
        let batch: ParsedReleaseInput[] = [];
        const flush = async () => {
          const ids = batch.map((release) => release.id);
          await trx.deleteFrom('release_tags').where('release_id', 'in', ids).execute();
          await trx.deleteFrom('releases').where('id', 'in', ids).execute();
          await this.insertReleases(trx, batch, stamp, () => stamp);
          done += batch.length;
          batch = [];
          onProgress?.(done);
        };
        for (const release of releases) {
          batch.push(normalizeRelease(release));
          if (batch.length === insertBatchSize * 5) await flush();
        }
        if (batch.length > 0) await flush();
        await this.recountFacets(trx, 'all');
        await this.bumpCatalogueVersion(trx, stamp);
        return done;
      }),
    );
  }

  /** Inserts releases, their tag rows and new facet values; returns the tags written. */
  private async insertReleases(
    trx: Executor,
    releases: ParsedReleaseInput[],
    updatedAt: string,
    createdAtOf: (id: string) => string,
  ): Promise<TagRow[]> {
    const tagRows: Array<{ kind: number; value_key: string; release_date: string; release_id: string }> = [];
    const facetDisplays = new Map<string, TagRow>();
    const releaseRows = releases.map((release) => {
      const createdAt = createdAtOf(release.id);
      for (const tag of tagsOf(release)) {
        tagRows.push({
          kind: tag.kind,
          value_key: tag.value_key,
          release_date: release.release_date,
          release_id: release.id,
        });
        const id = `${tag.kind}:${tag.value_key}`;
        if (!facetDisplays.has(id)) facetDisplays.set(id, tag);
      }
      return {
        id: release.id,
        title: release.title,
        artist: release.artist,
        release_date: release.release_date,
        release_type: release.release_type,
        track_count: release.track_count,
        cover_url: release.cover_url,
        created_at: createdAt,
        updated_at: updatedAt,
        doc: releaseDocument(release, createdAt, updatedAt),
      };
    });
    for (let i = 0; i < releaseRows.length; i += insertBatchSize) {
      await trx
        .insertInto('releases')
        .values(releaseRows.slice(i, i + insertBatchSize))
        .execute();
    }
    for (let i = 0; i < tagRows.length; i += insertBatchSize) {
      await trx
        .insertInto('release_tags')
        .values(tagRows.slice(i, i + insertBatchSize))
        .execute();
    }
    const facets = [...facetDisplays.values()];
    for (let i = 0; i < facets.length; i += insertBatchSize) {
      await trx
        .insertInto('facet_values')
        .values(facets.slice(i, i + insertBatchSize).map((tag) => ({ ...tag, release_count: 0 })))
        // The first spelling seen of a value stays its display name.
        .onConflict((oc) => oc.columns(['kind', 'value_key']).doNothing())
        .execute();
    }
    return facets;
  }

  private async recountFacets(trx: Executor, keys: Array<{ kind: number; value_key: string }> | 'all'): Promise<void> {
    const count = sql<number>`(select count(*) from release_tags t
      where t.kind = facet_values.kind and t.value_key = facet_values.value_key)`;
    if (keys === 'all') {
      await trx.updateTable('facet_values').set({ release_count: count }).execute();
      return;
    }
    for (const key of keys) {
      await trx
        .updateTable('facet_values')
        .set({ release_count: count })
        .where('kind', '=', key.kind)
        .where('value_key', '=', key.value_key)
        .execute();
    }
  }

  private async bumpCatalogueVersion(trx: Executor, stamp: string): Promise<void> {
    await trx
      .updateTable('catalogue_state')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: stamp }))
      .where('id', '=', 1)
      .execute();
    this.statistics = undefined;
    // Another connection's commit changes the counter; this connection's own writes must clear it too.
    this.pageCache.clear();
    this.pageCacheStamp = undefined;
  }

  // --- keys, users, sessions ----------------------------------------------------------------------------

  insertApiKey(record: ApiKeyRecord): Promise<void> {
    return this.guard(async () => {
      await this.db
        .insertInto('api_keys')
        .values({
          id: record.id,
          name: record.name,
          owner_id: record.ownerId,
          key_hash: record.keyHash,
          display_start: record.displayStart,
          created_at: record.createdAt,
          expires_at: record.expiresAt,
          revoked_at: record.revokedAt,
          last_used_at: record.lastUsedAt,
        })
        .execute();
    });
  }

  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.guard(async () => {
      const rows = await this.backend.read<ApiKeysTable>(
        this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).compile(),
      );
      return rows[0] ? toApiKeyRecord(rows[0]) : undefined;
    });
  }

  listApiKeys(ownerId?: string): Promise<ApiKeyRecord[]> {
    return this.guard(async () => {
      let query = this.db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc');
      if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId);
      return (await query.execute()).map(toApiKeyRecord);
    });
  }

  revokeApiKey(id: string, at: Date): Promise<boolean> {
    return this.guard(async () => {
      const result = await this.db
        .updateTable('api_keys')
        .set({ revoked_at: at.toISOString() })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    });
  }

  touchApiKey(id: string, at: Date): Promise<void> {
    return this.guard(async () => {
      await this.db.updateTable('api_keys').set({ last_used_at: at.toISOString() }).where('id', '=', id).execute();
    });
  }

  findUserByEmail(email: string): Promise<UserRecord | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('users')
        .select(['id', 'email', 'created_at'])
        .where('email', '=', email.toLowerCase())
        .executeTakeFirst();
      return row ? { id: row.id, email: row.email, createdAt: row.created_at } : undefined;
    });
  }

  insertUser(user: UserRecord & { passwordHash: string | null }): Promise<void> {
    return this.guard(async () => {
      await this.db
        .insertInto('users')
        .values({
          id: user.id,
          email: user.email.toLowerCase(),
          password_hash: user.passwordHash,
          created_at: user.createdAt,
        })
        .execute();
    });
  }

  findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('sessions')
        .select(['id', 'user_id', 'created_at', 'idle_expires_at', 'absolute_expires_at'])
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row
        ? {
            id: row.id,
            userId: row.user_id,
            createdAt: row.created_at,
            idleExpiresAt: row.idle_expires_at,
            absoluteExpiresAt: row.absolute_expires_at,
          }
        : undefined;
    });
  }

  serverSecret(name: string): Promise<string> {
    return this.guard(async () => {
      const cached = this.secrets.get(name);
      if (cached) return cached;
      // Insert-if-absent then read back, so concurrent first starts of several instances agree on one value.
      await this.db
        .insertInto('server_secrets')
        .values({ name, value: randomBytes(32).toString('base64url') })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await this.db
        .selectFrom('server_secrets')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      this.secrets.set(name, row.value);
      return row.value;
    });
  }
}
