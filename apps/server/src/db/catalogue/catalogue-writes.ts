import { releaseFilterParameters, type ParsedReleaseInput, type Release } from '@releases/contract';
import { sql, type Transaction } from 'kysely';
import { canonicalFilterValue } from '../../catalogue/filters.js';
import type { CatalogueCache } from './catalogue-reads.js';
import type { CatalogueWrites, UpsertResult } from '../interface.js';
import { guarded, type Backend } from '../backend.js';
import { tagKinds, type Database, type ReleaseRow, type TagRow } from '../schema.js';
import { searchIndexRows } from './search-rows.js';

/** Ids per `in (...)` list: well under both databases' bound-parameter limits. */
const idsPerStatement = 200;

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

/** One filter value of a release: its kind, its key (lowercase) and the spelling facets display. */
interface ReleaseTag {
  kind: number;
  value_key: string;
  display: string;
}

/** A release's filter values, one per distinct key, for every filter of the contract. */
function tagsOf(release: ParsedReleaseInput): ReleaseTag[] {
  const tags = new Map<string, ReleaseTag>();
  for (const name of releaseFilterParameters) {
    for (const display of release[name]) {
      const tag = { kind: tagKinds[name], value_key: display.toLowerCase(), display };
      const id = `${tag.kind}:${tag.value_key}`;
      if (!tags.has(id)) tags.set(id, tag);
    }
  }
  return [...tags.values()];
}

/** Normalizes what is stored: each filter's values in their canonical spelling, so the document and the index agree. */
function normalizeRelease(release: ParsedReleaseInput): ParsedReleaseInput {
  const normalized = { ...release };
  for (const name of releaseFilterParameters) normalized[name] = release[name].map(canonicalFilterValue[name]);
  return normalized;
}

/**
 * Catalogue writes. Each runs in one transaction, in its turn (`Backend.takeCatalogueWriteTurn`), recounts the
 * facets it touched and bumps `catalogue_state.version`, which other processes watch. This process's caches
 * are cleared once the transaction has committed, never before: a read in between would read the old rows
 * and could keep them as the new generation's.
 */
export class KyselyCatalogueWrites implements CatalogueWrites {
  constructor(
    private readonly backend: Backend,
    private readonly cache: CatalogueCache,
  ) {}

  upsertReleases(releases: ParsedReleaseInput[], now: Date): Promise<UpsertResult> {
    return this.write((trx) => this.upsertIn(trx, releases, now));
  }

  async seedIfEmpty(releases: ParsedReleaseInput[], now: Date): Promise<boolean> {
    // In its turn, so a concurrent seeder (another instance starting) has either committed, and is seen here,
    // or waits for this one and then sees it.
    return this.write(async (trx) => {
      if (await trx.selectFrom('releases').select('id').limit(1).executeTakeFirst()) return false;
      await this.upsertIn(trx, releases, now);
      return true;
    });
  }

  loadReleases(
    releases: Iterable<ParsedReleaseInput>,
    now: Date,
    onProgress?: (done: number) => void,
  ): Promise<number> {
    return this.write((trx) =>
      this.backend.withBulkLoadSettings(trx, () => this.loadIn(trx, releases, now, onProgress)),
    );
  }

  /** Runs a catalogue write in its own transaction and turn; clears this process's caches after it commits. */
  private async write<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const result = await guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        await this.backend.takeCatalogueWriteTurn(trx);
        return work(trx);
      }),
    );
    this.cache.clear();
    await this.backend.afterCatalogueCommit();
    return result;
  }

  private async upsertIn(trx: Transaction<Database>, releases: ParsedReleaseInput[], now: Date): Promise<UpsertResult> {
    const stamp = now.toISOString();
    const normalized = releases.map(normalizeRelease);
    const existing = new Map<string, string>();
    for (let i = 0; i < normalized.length; i += idsPerStatement) {
      const ids = normalized.slice(i, i + idsPerStatement).map((release) => release.id);
      const rows = await trx.selectFrom('releases').select(['id', 'created_at']).where('id', 'in', ids).execute();
      for (const row of rows) existing.set(row.id, row.created_at);
    }
    const touchedKeys = new Map<string, { kind: number; value_key: string }>();
    if (existing.size > 0) {
      const ids = [...existing.keys()];
      for (let i = 0; i < ids.length; i += idsPerStatement) {
        const batch = ids.slice(i, i + idsPerStatement);
        const oldTags = await trx
          .selectFrom('release_tags')
          .select(['kind', 'value_key'])
          .where('release_id', 'in', batch)
          .execute();
        for (const tag of oldTags) touchedKeys.set(`${tag.kind}:${tag.value_key}`, tag);
        await this.deleteReleases(trx, batch);
      }
    }
    // Later rows with the same id win, as an upsert of a file read top to bottom should.
    const latest = new Map(normalized.map((release) => [release.id, release]));
    const rows = this.rowsOf([...latest.values()], stamp, (id) => existing.get(id) ?? stamp);
    await this.backend.insertCatalogueRows(trx, rows.releases, rows.tags);
    await this.addFacetValues(trx, rows.facets);
    for (const tag of rows.facets) touchedKeys.set(`${tag.kind}:${tag.value_key}`, tag);
    await this.recountFacets(trx, [...touchedKeys.values()]);
    await this.backend.afterCatalogueWrite(trx, latest.size + existing.size);
    await this.bumpCatalogueVersion(trx, stamp);
    const updated = [...latest.keys()].filter((id) => existing.has(id)).length;
    return { inserted: latest.size - updated, updated };
  }

  private async loadIn(
    trx: Transaction<Database>,
    releases: Iterable<ParsedReleaseInput>,
    now: Date,
    onProgress: ((done: number) => void) | undefined,
  ): Promise<number> {
    // Into an empty catalogue nothing needs replacing: the deletes (an index probe per release) are skipped,
    // and the indexes are built after the rows.
    const wasEmpty = (await trx.selectFrom('releases').select('id').limit(1).executeTakeFirst()) === undefined;
    const done = wasEmpty
      ? await this.backend.loadIntoEmptyCatalogue(trx, (write) => this.insertAll(trx, releases, now, onProgress, write))
      : await this.insertAll(trx, releases, now, onProgress, async (releaseRows, tagRows) => {
          const ids = releaseRows.map((release) => release.id);
          for (let i = 0; i < ids.length; i += idsPerStatement)
            await this.deleteReleases(trx, ids.slice(i, i + idsPerStatement));
          await this.backend.insertCatalogueRows(trx, releaseRows, tagRows);
        });
    const stamp = now.toISOString();
    await this.recountFacets(trx, 'all');
    await this.backend.afterCatalogueWrite(trx, done);
    await this.bumpCatalogueVersion(trx, stamp);
    return done;
  }

  /** Writes releases in batches through `write`; returns how many. */
  private async insertAll(
    trx: Transaction<Database>,
    releases: Iterable<ParsedReleaseInput>,
    now: Date,
    onProgress: ((done: number) => void) | undefined,
    write: (releases: ReleaseRow[], tags: TagRow[]) => Promise<void>,
  ): Promise<number> {
    const stamp = now.toISOString();
    let done = 0;
    let batch: ParsedReleaseInput[] = [];
    const flush = async () => {
      const rows = this.rowsOf(batch, stamp, () => stamp);
      await write(rows.releases, rows.tags);
      await this.addFacetValues(trx, rows.facets);
      done += batch.length;
      batch = [];
      onProgress?.(done);
    };
    for (const release of releases) {
      batch.push(normalizeRelease(release));
      if (batch.length === this.backend.bulkLoadBatchSize) await flush();
    }
    if (batch.length > 0) await flush();
    return done;
  }

  private async deleteReleases(trx: Transaction<Database>, ids: string[]): Promise<void> {
    await trx.deleteFrom('release_tags').where('release_id', 'in', ids).execute();
    await trx.deleteFrom('releases').where('id', 'in', ids).execute();
  }

  /** The rows of releases: their own, their tags', and the distinct facet values they carry. */
  private rowsOf(
    releases: ParsedReleaseInput[],
    updatedAt: string,
    createdAtOf: (id: string) => string,
  ): { releases: ReleaseRow[]; tags: TagRow[]; facets: ReleaseTag[] } {
    const tags: TagRow[] = [];
    const facets = new Map<string, ReleaseTag>();
    const releaseRows = releases.map((release): ReleaseRow => {
      const createdAt = createdAtOf(release.id);
      for (const tag of tagsOf(release)) {
        tags.push({
          kind: tag.kind,
          value_key: tag.value_key,
          release_date: release.release_date,
          release_id: release.id,
        });
        const id = `${tag.kind}:${tag.value_key}`;
        if (!facets.has(id)) facets.set(id, tag);
      }
      const search = searchIndexRows(release);
      for (const tag of search.tags) {
        tags.push(tag);
        // Counted like the filters' values, for planning; the key is its own display.
        const id = `${tag.kind}:${tag.value_key}`;
        if (!facets.has(id)) facets.set(id, { kind: tag.kind, value_key: tag.value_key, display: tag.value_key });
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
        search_title: search.search_title,
        search_artist: search.search_artist,
      };
    });
    return { releases: releaseRows, tags, facets: [...facets.values()] };
  }

  /** New facet values, counted later; the first spelling seen of a value stays its display name. */
  private async addFacetValues(trx: Transaction<Database>, facets: ReleaseTag[]): Promise<void> {
    for (let i = 0; i < facets.length; i += idsPerStatement) {
      await trx
        .insertInto('facet_values')
        .values(facets.slice(i, i + idsPerStatement).map((tag) => ({ ...tag, release_count: 0 })))
        .onConflict((oc) => oc.columns(['kind', 'value_key']).doNothing())
        .execute();
    }
  }

  private async recountFacets(
    trx: Transaction<Database>,
    keys: Array<{ kind: number; value_key: string }> | 'all',
  ): Promise<void> {
    const count = sql<number>`(select count(*) from release_tags t
      where t.kind = facet_values.kind and t.value_key = facet_values.value_key)`;
    if (keys === 'all') {
      await trx.updateTable('facet_values').set({ release_count: count }).execute();
      return;
    }
    const byKind = new Map<number, string[]>();
    for (const key of keys) {
      const values = byKind.get(key.kind);
      if (values) values.push(key.value_key);
      else byKind.set(key.kind, [key.value_key]);
    }
    for (const [kind, values] of byKind) {
      for (let i = 0; i < values.length; i += idsPerStatement) {
        await trx
          .updateTable('facet_values')
          .set({ release_count: count })
          .where('kind', '=', kind)
          .where('value_key', 'in', values.slice(i, i + idsPerStatement))
          .execute();
      }
    }
  }

  private async bumpCatalogueVersion(trx: Transaction<Database>, stamp: string): Promise<void> {
    await trx
      .updateTable('catalogue_state')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: stamp }))
      .where('id', '=', 1)
      .execute();
  }
}
