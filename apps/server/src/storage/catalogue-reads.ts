import type { Facets, FacetValue } from '@releases/contract';
import type { CatalogueReads, ReleasePage, ReleasePageRequest } from './interface.js';
import { guarded, type Backend } from './backend.js';
import { buildReleasePageQuery, type PageRow, type TagStatistics } from './release-query.js';
import { tagKinds } from './schema.js';

/** How long planner statistics may be reused before they are read again. */
const statisticsTtlMs = 2_000;
/** Pages kept in memory, at most (about 10 KB each at the default page size, 50 KB at the largest)... */
const pageCacheSize = 2_000;
/** ...and at most this many characters of release JSON in all (V8 keeps ASCII text at a byte a character). */
const pageCacheChars = 8 * 1024 * 1024;

/**
 * What catalogue reads remember between requests: served pages, the facets and the planner's statistics.
 * Everything remembered belongs to one `generation`, which moves on when this storage writes (the writes call
 * `clear()`) or when the backend's change counter says another connection did; a new generation starts empty.
 */
export class CatalogueCache {
  readonly pages = new Map<string, ReleasePage & { chars: number }>();
  pageChars = 0;
  facets: Omit<Facets, 'generated_at'> | undefined;
  statistics: { stats: TagStatistics; readAt: number } | undefined;
  statisticsLoad: Promise<TagStatistics> | undefined;
  private generation = 0;
  private generationOfContents = 0;
  private lastCounter: number | undefined;

  /** The current generation, or undefined when nothing may be cached now (see `Backend.changeCounter`). */
  stamp(backend: Backend): number | undefined {
    const counter = backend.changeCounter();
    if (counter === undefined) return undefined;
    if (counter !== this.lastCounter) {
      this.lastCounter = counter;
      this.generation++;
    }
    if (this.generationOfContents !== this.generation) {
      this.pages.clear();
      this.pageChars = 0;
      this.facets = undefined;
      this.generationOfContents = this.generation;
    }
    return this.generation;
  }

  /** Keeps a page, dropping the oldest ones beyond the bounds. */
  keepPage(key: string, page: ReleasePage): void {
    const chars = page.releaseJson.reduce((sum, json) => sum + json.length, 0);
    const previous = this.pages.get(key);
    if (previous) {
      this.pages.delete(key);
      this.pageChars -= previous.chars;
    }
    while (this.pages.size > 0 && (this.pages.size >= pageCacheSize || this.pageChars + chars > pageCacheChars)) {
      const [oldestKey, oldest] = this.pages.entries().next().value!;
      this.pages.delete(oldestKey);
      this.pageChars -= oldest.chars;
    }
    this.pages.set(key, { ...page, chars });
    this.pageChars += chars;
  }

  /** Whether what was read under `stamp` may still be kept (no write happened meanwhile). */
  current(stamp: number | undefined): stamp is number {
    return stamp !== undefined && stamp === this.generation && stamp === this.generationOfContents;
  }

  /** This storage wrote: forget everything. */
  clear(): void {
    this.generation++;
    this.pages.clear();
    this.pageChars = 0;
    this.facets = undefined;
    this.statistics = undefined;
    this.generationOfContents = this.generation;
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

  cacheStamp(): number | undefined {
    return this.cache.stamp(this.backend);
  }

  /**
   * Recently served pages are kept for their generation of the catalogue, so hot pages cost no query at all.
   * A page is kept only if no write started a new generation while it was being read.
   */
  listReleases(request: ReleasePageRequest): Promise<ReleasePage> {
    return guarded(this.backend, async () => {
      const stamp = this.cache.stamp(this.backend);
      const { filters, sort, limit, after } = request;
      const key = `${sort}|${limit}|${after ? `${after.releaseDate}|${after.id}` : ''}|${filters.vocaloid_banks.join(',')}|${filters.genres.join(',')}|${filters.languages.join(',')}`;
      const pages = this.cache.pages;
      if (stamp !== undefined) {
        const known = pages.get(key);
        if (known) return known;
      }
      const page = await this.queryPage(request);
      if (this.cache.current(stamp)) this.cache.keepPage(key, page);
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
      const stamp = this.cache.stamp(this.backend);
      if (stamp !== undefined && this.cache.facets) return this.cache.facets;
      const facets = await this.readFacets();
      if (this.cache.current(stamp)) this.cache.facets = facets;
      return facets;
    });
  }

  private async readFacets(): Promise<Omit<Facets, 'generated_at'>> {
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
