import type { Facets, FacetValue } from '@releases/contract';
import type { CatalogueReads, ReleasePage, ReleasePageRequest } from './interface.js';
import { guarded, type Backend } from './backend.js';
import { buildReleasePageQuery, type PageRow, type TagStatistics } from './release-query.js';
import { tagKinds } from './schema.js';

/** How long planner statistics may be reused before they are read again. */
const statisticsTtlMs = 2_000;
/** Pages kept in memory (about 10 KB each at the default page size). */
const pageCacheSize = 2_000;

/**
 * What catalogue reads remember between requests: served pages and the planner's statistics. Shared with
 * the writes of the same connection, which drop it at once (another connection's commits are caught by the
 * backend's change counter).
 */
export class CatalogueCache {
  readonly pages = new Map<string, ReleasePage>();
  pagesStamp: number | undefined;
  statistics: { stats: TagStatistics; readAt: number } | undefined;
  statisticsLoad: Promise<TagStatistics> | undefined;

  clear(): void {
    this.pages.clear();
    this.pagesStamp = undefined;
    this.statistics = undefined;
  }
}

export class KyselyCatalogueReads implements CatalogueReads {
  constructor(
    private readonly backend: Backend,
    private readonly cache: CatalogueCache,
  ) {}

  private async tagStatistics(): Promise<TagStatistics> {
    const cache = this.cache;
    const now = Date.now();
    if (cache.statistics && now - cache.statistics.readAt < statisticsTtlMs) return cache.statistics.stats;
    cache.statisticsLoad ??= (async () => {
      try {
        const rows = await this.backend.read(
          this.backend.db.selectFrom('facet_values').select(['kind', 'value_key', 'release_count']).compile(),
        );
        const stats = new Map<number, Map<string, number>>();
        for (const row of rows) {
          let perKind = stats.get(row.kind);
          if (!perKind) stats.set(row.kind, (perKind = new Map<string, number>()));
          perKind.set(row.value_key, row.release_count);
        }
        cache.statistics = { stats, readAt: Date.now() };
        return stats;
      } finally {
        cache.statisticsLoad = undefined;
      }
    })();
    return cache.statisticsLoad;
  }

  /**
   * Recently served pages, valid while the database has not changed since they were read (checked on every
   * call, so a write from any process or instance is seen at once). Hot pages then cost no query at all.
   */
  private cachedPage(request: ReleasePageRequest): { key: string; page: ReleasePage | undefined } | undefined {
    const stamp = this.backend.changeCounter?.();
    if (stamp === undefined) return undefined;
    const pages = this.cache.pages;
    if (stamp !== this.cache.pagesStamp) {
      pages.clear();
      this.cache.pagesStamp = stamp;
    }
    const { filters, sort, limit, after } = request;
    const key = `${sort}|${limit}|${after ? `${after.releaseDate}|${after.id}` : ''}|${filters.vocaloid_banks.join(',')}|${filters.genres.join(',')}|${filters.languages.join(',')}`;
    return { key, page: pages.get(key) };
  }

  listReleases(request: ReleasePageRequest): Promise<ReleasePage> {
    return guarded(this.backend, async () => {
      const cached = this.cachedPage(request);
      if (cached?.page) return cached.page;
      const page = await this.queryPage(request);
      if (cached) {
        const pages = this.cache.pages;
        if (pages.size >= pageCacheSize) pages.delete(pages.keys().next().value!);
        pages.set(cached.key, page);
      }
      return page;
    });
  }

  private async queryPage(request: ReleasePageRequest): Promise<ReleasePage> {
    const stats = await this.tagStatistics();
    const rows = await this.backend.read<PageRow>(buildReleasePageQuery(request, stats).compile(this.backend.db));
    const hasMore = rows.length > request.limit;
    const page = hasMore ? rows.slice(0, request.limit) : rows;
    const last = page[page.length - 1];
    return {
      releaseJson: page.map((row) => row.doc),
      next: hasMore && last ? { releaseDate: last.release_date, id: last.id } : undefined,
    };
  }

  getReleaseJson(id: string): Promise<string | undefined> {
    return guarded(this.backend, async () => {
      const rows = await this.backend.read<{ doc: string }>(
        this.backend.db.selectFrom('releases').select('doc').where('id', '=', id).compile(),
      );
      return rows[0]?.doc;
    });
  }

  facets(): Promise<Omit<Facets, 'generated_at'>> {
    return guarded(this.backend, async () => {
      const rows = await this.backend.read(
        this.backend.db
          .selectFrom('facet_values')
          .select(['kind', 'display', 'release_count'])
          .where('release_count', '>', 0)
          .orderBy('release_count', 'desc')
          .orderBy('value_key', 'asc')
          .compile(),
      );
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
    return guarded(this.backend, async () => {
      const rows = await this.backend.read(
        this.backend.db
          .selectFrom('releases')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .compile(),
      );
      return Number(rows[0]?.n ?? 0);
    });
  }

  catalogueVersion(): Promise<number> {
    return guarded(this.backend, async () => {
      const rows = await this.backend.read<{ version: number | string }>(
        this.backend.db.selectFrom('catalogue_state').select('version').where('id', '=', 1).compile(),
      );
      return Number(rows[0]?.version ?? 0);
    });
  }
}
