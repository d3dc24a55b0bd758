import type { ParsedReleaseInput, Release } from '@releases/contract';
import { sql, type Kysely, type Transaction } from 'kysely';
import { canonicalLanguageTag } from '../catalogue/language-tags.js';
import type { CatalogueCache } from './catalogue-reads.js';
import type { CatalogueWrites, UpsertResult } from './interface.js';
import { guarded, type Backend } from './backend.js';
import { createTagStaging, stageTagRows, withIndexesBuiltAfter } from './bulk-load.js';
import { tagKinds, type Database } from './schema.js';

/** Rows per multi-row INSERT: well under both dialects' bound-parameter limits. */
const insertBatchSize = 200;

type Executor = Kysely<Database> | Transaction<Database>;

/** SQLite's page cache during a bulk load, in KiB (see `withBulkLoadCache`). */
const bulkLoadCacheKib = 512 * 1024;

/** Rows per PostgreSQL bulk INSERT: they travel as one JSON parameter, so the bound is memory, not parameters. */
const postgresBatchSize = 5_000;

/** Rows as the tables hold them. */
type ReleaseRow = Database['releases'];
type TagInsertRow = Database['release_tags'];

/**
 * PostgreSQL: thousands of rows per statement, sent as one JSON text parameter that the server turns back into
 * rows (`json_to_recordset`), instead of a parameter per value (which caps a statement at 65,535 values, so at
 * a few hundred rows). JSON.stringify is native: per-value escaping in JavaScript (array literals) cost more
 * than the inserts themselves, most of it in garbage collection.
 */
async function insertReleaseRowsPostgres(trx: Executor, releases: ReleaseRow[], tags: TagInsertRow[]): Promise<void> {
  for (let i = 0; i < releases.length; i += postgresBatchSize) {
    const rows = JSON.stringify(releases.slice(i, i + postgresBatchSize));
    await sql`insert into releases (id, title, artist, release_date, release_type, track_count, cover_url, created_at, updated_at, doc)
      select id, title, artist, release_date, release_type, track_count, cover_url, created_at, updated_at, doc
      from json_to_recordset(${rows}::json) as r(id text, title text, artist text, release_date text, release_type text,
        track_count integer, cover_url text, created_at text, updated_at text, doc text)`.execute(trx);
  }
  for (let i = 0; i < tags.length; i += postgresBatchSize) {
    const rows = JSON.stringify(tags.slice(i, i + postgresBatchSize));
    await sql`insert into release_tags (kind, value_key, release_date, release_id)
      select kind, value_key, release_date, release_id
      from json_to_recordset(${rows}::json) as t(kind integer, value_key text, release_date text, release_id text)`.execute(
      trx,
    );
  }
}

/** The serialized form a release is stored and served in; field order is the documented one. */
function releaseDocument(release: ParsedReleaseInput, createdAt: string, updatedAt: string): string {
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
  return { ...release, languages: release.languages.map(canonicalLanguageTag) };
}

export class KyselyCatalogueWrites implements CatalogueWrites {
  constructor(
    private readonly backend: Backend,
    private readonly cache: CatalogueCache,
  ) {}

  upsertReleases(releases: ParsedReleaseInput[], now: Date): Promise<UpsertResult> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        await this.takeWriteTurn(trx);
        return this.upsertIn(trx, releases, now);
      }),
    );
  }

  seedIfEmpty(releases: ParsedReleaseInput[], now: Date): Promise<boolean> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        // In its turn, so a concurrent seeder (another instance starting) has either committed, and is seen
        // here, or waits for this one and then sees it.
        await this.takeWriteTurn(trx);
        if (await trx.selectFrom('releases').select('id').limit(1).executeTakeFirst()) return false;
        await this.upsertIn(trx, releases, now);
        return true;
      }),
    );
  }

  private async upsertIn(trx: Executor, releases: ParsedReleaseInput[], now: Date): Promise<UpsertResult> {
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
    await this.refreshPlannerStatistics(trx, latest.size + existing.size);
    await this.bumpCatalogueVersion(trx, stamp);
    const updated = [...latest.keys()].filter((id) => existing.has(id)).length;
    return { inserted: latest.size - updated, updated };
  }

  loadReleases(
    releases: Iterable<ParsedReleaseInput>,
    now: Date,
    onProgress?: (done: number) => void,
  ): Promise<number> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        await this.takeWriteTurn(trx);
        return this.withBulkLoadCache(trx, () => this.loadIn(trx, releases, now, onProgress));
      }),
    );
  }

  private async loadIn(
    trx: Executor,
    releases: Iterable<ParsedReleaseInput>,
    now: Date,
    onProgress: ((done: number) => void) | undefined,
  ): Promise<number> {
    // Into an empty catalogue nothing needs replacing: the deletes (an index probe per release) are skipped.
    const wasEmpty = (await trx.selectFrom('releases').select('id').limit(1).executeTakeFirst()) === undefined;
    const dialect = this.backend.dialect;
    const insert = () => this.insertAll(trx, releases, now, onProgress, wasEmpty);
    let done: number;
    if (wasEmpty) {
      if (dialect === 'sqlite') await createTagStaging(trx);
      done = await withIndexesBuiltAfter(trx, dialect, insert);
    } else {
      done = await insert();
    }
    await this.finishLoad(trx, done, now);
    return done;
  }

  private async insertAll(
    trx: Executor,
    releases: Iterable<ParsedReleaseInput>,
    now: Date,
    onProgress: ((done: number) => void) | undefined,
    wasEmpty: boolean,
  ): Promise<number> {
    const stamp = now.toISOString();
    const batchSize = this.backend.dialect === 'postgres' ? postgresBatchSize : insertBatchSize * 5;
    let done = 0;
    let batch: ParsedReleaseInput[] = [];
    const flush = async () => {
      if (!wasEmpty) {
        const ids = batch.map((release) => release.id);
        for (let i = 0; i < ids.length; i += insertBatchSize) {
          const slice = ids.slice(i, i + insertBatchSize);
          await trx.deleteFrom('release_tags').where('release_id', 'in', slice).execute();
          await trx.deleteFrom('releases').where('id', 'in', slice).execute();
        }
      }
      // Into an empty SQLite catalogue, tag rows are staged and copied over sorted (`bulk-load.ts`).
      await this.insertReleases(trx, batch, stamp, () => stamp, wasEmpty && this.backend.dialect === 'sqlite');
      done += batch.length;
      batch = [];
      onProgress?.(done);
    };
    for (const release of releases) {
      batch.push(normalizeRelease(release));
      if (batch.length === batchSize) await flush();
    }
    if (batch.length > 0) await flush();
    return done;
  }

  /** After the releases of a bulk load are in: facets, statistics and the version other instances watch. */
  private async finishLoad(trx: Executor, done: number, now: Date): Promise<void> {
    const stamp = now.toISOString();
    await this.recountFacets(trx, 'all');
    await this.refreshPlannerStatistics(trx, done);
    await this.bumpCatalogueVersion(trx, stamp);
  }

  /**
   * SQLite: a bigger page cache while a bulk load runs. A million releases insert their date index and tag
   * rows in random order; once those B-trees outgrow the usual 64 MB, every insert reads pages back from disk
   * and a load that started at 11 s per 100,000 releases ended at 20. Only the loading process (the CLI) holds
   * the extra memory, and only while it loads.
   */
  private async withBulkLoadCache<T>(trx: Executor, work: () => Promise<T>): Promise<T> {
    if (this.backend.dialect !== 'sqlite') return work();
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(trx);
    const usual = rows[0]?.cache_size;
    await sql`pragma cache_size = ${sql.raw(String(-bulkLoadCacheKib))}`.execute(trx);
    try {
      return await work();
    } finally {
      if (usual !== undefined) await sql`pragma cache_size = ${sql.raw(String(usual))}`.execute(trx);
    }
  }

  /**
   * Catalogue writes take turns, and take them first thing in their transaction.
   *
   * PostgreSQL: facet counts are recounted from `release_tags` inside each write; under READ COMMITTED, a
   * recount that waited for another import's row lock would still count from its own older snapshot and
   * overwrite the other's total (two imports of 40 and 30 releases left a count of 41 instead of 71). A
   * transaction-scoped advisory lock, per schema, makes the second import start after the first commits,
   * every statement of it then seeing the first's rows.
   *
   * SQLite: one writer at a time already, but a transaction only asks for the write lock at its first write.
   * Asking at once (a write that changes nothing) means a busy database is met before any work is done: the
   * retry in `guarded` then starts from scratch, which matters for `loadReleases`, whose input is read once.
   */
  private async takeWriteTurn(trx: Executor): Promise<void> {
    if (this.backend.dialect === 'sqlite') {
      await trx
        .updateTable('catalogue_state')
        .set((eb) => ({ version: eb.ref('version') }))
        .where('id', '=', 1)
        .execute();
      return;
    }
    await sql`select pg_advisory_xact_lock(hashtextextended('releases:catalogue-writes:' || current_schema(), 0))`.execute(
      trx,
    );
  }

  /** Inserts releases, their tag rows and new facet values; returns the tags written. */
  private async insertReleases(
    trx: Executor,
    releases: ParsedReleaseInput[],
    updatedAt: string,
    createdAtOf: (id: string) => string,
    stageTags = false,
  ): Promise<TagRow[]> {
    const tagRows: TagInsertRow[] = [];
    const facetDisplays = new Map<string, TagRow>();
    const releaseRows = releases.map((release): ReleaseRow => {
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
    if (this.backend.dialect === 'postgres') {
      await insertReleaseRowsPostgres(trx, releaseRows, tagRows);
    } else {
      for (let i = 0; i < releaseRows.length; i += insertBatchSize) {
        await trx
          .insertInto('releases')
          .values(releaseRows.slice(i, i + insertBatchSize))
          .execute();
      }
      for (let i = 0; i < tagRows.length; i += insertBatchSize) {
        const rows = tagRows.slice(i, i + insertBatchSize);
        if (stageTags) await stageTagRows(trx, rows);
        else await trx.insertInto('release_tags').values(rows).execute();
      }
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

  /**
   * PostgreSQL plans each filter from its statistics, and a table never analysed is estimated at a handful of
   * rows: a two-filter page on 100k releases then took 114 s instead of 1 ms (a nested loop over everything).
   * Autovacuum analyses in time when it runs, but it may be off or behind after a large import, so a write
   * that changed more than autovacuum's own threshold (50 rows + 10% of the table, counting what earlier
   * writes changed since the last ANALYZE) analyses the catalogue tables itself, in its transaction.
   */
  private async refreshPlannerStatistics(trx: Executor, releasesWritten: number): Promise<void> {
    if (this.backend.dialect !== 'postgres' || releasesWritten === 0) return;
    const { rows } = await sql<{ reltuples: number | string; modified: number | string | null }>`
      select c.reltuples, s.n_mod_since_analyze as modified
      from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
      where c.oid = 'releases'::regclass`.execute(trx);
    const tuples = Number(rows[0]?.reltuples ?? -1);
    const modified = Number(rows[0]?.modified ?? 0) + releasesWritten;
    if (tuples >= 0 && modified <= 50 + 0.1 * tuples) return;
    await sql`analyze releases, release_tags, facet_values`.execute(trx);
  }

  private async bumpCatalogueVersion(trx: Executor, stamp: string): Promise<void> {
    await trx
      .updateTable('catalogue_state')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: stamp }))
      .where('id', '=', 1)
      .execute();
    // Another connection's commit changes the counter; this connection's own writes must clear it too.
    this.cache.clear();
  }
}
