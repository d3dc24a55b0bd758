import type { Facets, FacetValue } from '@releases/contract';
import { perFilter } from '../catalogue/filters.js';
import type { CatalogueReads, ReleasePage, ReleasePageRequest } from './interface.js';
import { guarded, type Backend } from './backend.js';
import { buildReleasePageQuery, type PageRow, type TagStatistics } from './release-query.js';
import { tagKinds } from './schema.js';

/** How long planner statistics may be reused before they are read again. */
const statisticsTtlMs = 2_000;

/**
 * What catalogue reads remember between requests: the facets and the planner's statistics. (Whole answers to
 * repeated requests are the answer cache's, `http/answer-cache.ts`, stamped with this generation.)
 * Everything remembered belongs to one `generation`, which moves on when this storage writes (the writes call
 * `clear()` once they committed) or when the backend's change counter says another connection did; a new
 * generation starts empty.
 */
export class CatalogueCache {
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
      this.facets = undefined;
      this.generationOfContents = this.generation;
    }
    return this.generation;
  }

  /** Whether what was read under `stamp` may still be kept (no write happened meanwhile). */
  current(stamp: number | undefined): stamp is number {
    return stamp !== undefined && stamp === this.generation && stamp === this.generationOfContents;
  }

  /** This storage's write committed: forget everything. */
  clear(): void {
    this.generation++;
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

  listReleases(request: ReleasePageRequest): Promise<ReleasePage> {
    return guarded(this.backend, () => this.queryPage(request));
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
    return perFilter((name): FacetValue[] =>
      rows
        .filter((row) => row.kind === tagKinds[name])
        .map((row) => ({ value: row.display, count: row.release_count })),
    );
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
