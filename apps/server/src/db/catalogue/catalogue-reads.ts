import { releaseFilterParameters, type Facets, type FacetValue, type ReleaseFilterParameter } from '@releases/contract';
import { sql, type RawBuilder } from 'kysely';
import { combinePasses, facetPasses, listFacets, type PassCount } from '../../catalogue/facets.js';
import { perFilter, type PerFilter } from '../../catalogue/filters.js';
import type { Search } from '../../catalogue/search-text.js';
import {
  relevanceTiers,
  type CatalogueQuery,
  type ReleasePage,
  type ReleasePageRequest,
} from '../../catalogue/query.js';
import type { CatalogueReads } from '../interface.js';
import { pollUntil } from '../../kernel/deadline.js';
import { guarded, type Backend } from '../backend.js';
import { CatalogueIndex } from '../../search/catalogue-index.js';
import {
  buildReleasePageQuery,
  facetCountsQuery,
  matchCountQuery,
  matchingReleases,
  type DateSpan,
  type Matching,
  searchKeys,
  type KeyCounts,
  type PageRow,
} from './page-query.js';
import { searchKinds, tagKinds } from '../schema.js';

/** How many releases carry each filter value, per kind: the filters' side of `KeyCounts`. */
type TagStatistics = ReadonlyMap<number, ReadonlyMap<string, number>>;

/** One value of a facet: its key (as the index holds it), its display spelling and its count. */
interface FacetEntry {
  key: string;
  value: string;
  count: number;
}

/** The facets of the whole catalogue, as kept between requests. */
interface CatalogueFacets {
  values: PerFilter<FacetEntry[]>;
  /** Each value's display spelling, by key: what every listing of facets in context looks up. */
  display: PerFilter<Map<string, string>>;
  total: number;
  /** The first and last release dates (undefined in an empty catalogue). */
  dates: { first: string; last: string } | undefined;
}

/**
 * Where reads hold the process (SQLite), the facets in context count a big set of matches this many at a time
 * (by the driving range's dates), giving other requests a turn in between: a search that matches most of a
 * million releases takes its time, without making everyone else wait for it.
 */
const matchesPerPart = 5_000;

/** `parts` spans of about equal length from `first` to `last` (`YYYY-MM-DD`), the outer ones open-ended. */
export function dateSpans(
  dates: { first: string; last: string } | undefined,
  parts: number,
): Array<DateSpan | undefined> {
  if (!dates || parts <= 1) return [undefined];
  const day = 86_400_000;
  const first = Date.parse(dates.first) / day;
  const length = Date.parse(dates.last) / day - first + 1;
  const bounds: string[] = [];
  for (let i = 1; i < parts; i++) {
    const bound = new Date((first + Math.round((length * i) / parts)) * day).toISOString().slice(0, 10);
    if (bound !== bounds[bounds.length - 1]) bounds.push(bound);
  }
  return [undefined, ...bounds].map((from, i) => ({ from, to: bounds[i] }));
}

const filterKinds: number[] = releaseFilterParameters.map((name) => tagKinds[name]);
const filterOfKind = new Map<number, ReleaseFilterParameter>(
  releaseFilterParameters.map((name) => [tagKinds[name], name]),
);
const termKinds = Object.values(searchKinds);

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
  facets: CatalogueFacets | undefined;
  /** The catalogue in memory (`CatalogueIndex`), once built for this generation, and the build under way. */
  index: CatalogueIndex | undefined;
  indexBuild: Promise<void> | undefined;
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
      this.index = undefined;
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
    this.index = undefined;
    this.statistics = undefined;
    this.generationOfContents = this.generation;
  }
}

export class KyselyCatalogueReads implements CatalogueReads {
  constructor(
    private readonly backend: Backend,
    private readonly cache: CatalogueCache,
    private readonly options: { index: boolean },
  ) {}

  private async tagStatistics(): Promise<TagStatistics> {
    const cache = this.cache;
    const now = Date.now();
    if (cache.statistics && now - cache.statistics.readAt < statisticsTtlMs) return cache.statistics.stats;
    cache.statisticsLoad ??= (async () => {
      try {
        const rows = await this.backend.read(
          this.backend.db
            .selectFrom('facet_values')
            .select(['kind', 'value_key', 'release_count'])
            .where('kind', 'in', filterKinds)
            .compile(),
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

  inMemory(): { releases: number; version: number } | undefined {
    if (this.cache.stamp(this.backend) === undefined || !this.cache.index) return undefined;
    return { releases: this.cache.index.releases, version: this.cache.index.version };
  }

  cacheStamp(): number | undefined {
    return this.cache.stamp(this.backend);
  }

  listReleases(request: ReleasePageRequest): Promise<ReleasePage> {
    return guarded(this.backend, () => this.queryPage(request));
  }

  /**
   * What planning needs to know of a query's keys: the filters' counts (kept for a while, see
   * `statisticsTtlMs`) and the search's, read now (a handful of primary-key lookups).
   */
  private async keyCounts(search: Search | undefined): Promise<KeyCounts> {
    const stats = await this.tagStatistics();
    const keys = searchKeys(search);
    const terms = new Map<string, number>();
    if (keys.length > 0) {
      const rows = await this.backend.read(
        this.backend.db
          .selectFrom('facet_values')
          .select(['kind', 'value_key', 'release_count'])
          .where('kind', 'in', termKinds)
          .where('value_key', 'in', [...new Set(keys.map((k) => k.key))])
          .compile(),
      );
      for (const row of rows) terms.set(`${row.kind}:${row.value_key}`, row.release_count);
    }
    return (kind, key) => (filterKinds.includes(kind) ? stats.get(kind)?.get(key) : terms.get(`${kind}:${key}`)) ?? 0;
  }

  private async queryPage(request: ReleasePageRequest): Promise<ReleasePage> {
    const index = fromMemory(request, this.backend) ? this.catalogueIndex() : undefined;
    const indexed = index?.page(request);
    if (index && indexed) {
      const releaseJson = await this.documents(indexed.ids, index.version);
      if (releaseJson) return { releaseJson, next: indexed.next };
    }
    const counts = await this.keyCounts(request.search);
    const rows: Array<PageRow & { tier?: number }> = [];
    if (request.sort === 'relevance' && request.search) {
      // One query per tier, from the cursor's, until the page (and one more, to know there is a next) is full.
      for (let tier = request.after?.tier ?? 0; tier < relevanceTiers && rows.length <= request.limit; tier++) {
        const query = buildReleasePageQuery({ ...request, limit: request.limit - rows.length, tier }, counts);
        if (!query) break;
        for (const row of await this.backend.read<PageRow>(query.compile(this.backend.db))) rows.push({ ...row, tier });
      }
    } else {
      const query = buildReleasePageQuery(request, counts);
      if (query) rows.push(...(await this.backend.read<PageRow>(query.compile(this.backend.db))));
    }
    const hasMore = rows.length > request.limit;
    const page = hasMore ? rows.slice(0, request.limit) : rows;
    const last = page[page.length - 1];
    return {
      releaseJson: page.map((row) => row.doc),
      next: hasMore && last ? { tier: last.tier, releaseDate: last.release_date, id: last.id } : undefined,
    };
  }

  /**
   * The documents of `ids`, in that order, read with the catalogue's version; undefined when that is not
   * `version` (the index's): another process wrote since, and its version poll has not told this one yet.
   * So a page from memory is never older than one from the database.
   */
  private async documents(ids: string[], version: number): Promise<string[] | undefined> {
    const current = currentVersion;
    const rows = await this.backend.read<{ id: string | null; doc: string | null; version: number | string }>(
      ids.length === 0
        ? sql`select null as id, null as doc, ${current} as version`.compile(this.backend.db)
        : this.backend.db
            .selectFrom('releases')
            .select(['id', 'doc', current.as('version')])
            .where('id', 'in', ids)
            .compile(),
    );
    if (rows.length === 0 || Number(rows[0]!.version) !== version) return undefined;
    const byId = new Map(rows.map((row) => [row.id, row.doc]));
    const docs: string[] = [];
    for (const id of ids) {
      const doc = byId.get(id);
      if (doc === undefined || doc === null) return undefined;
      docs.push(doc);
    }
    return docs;
  }

  getReleaseJson(id: string): Promise<string | undefined> {
    return guarded(this.backend, async () => {
      const rows = await this.backend.read<{ doc: string }>(
        this.backend.db.selectFrom('releases').select('doc').where('id', '=', id).compile(),
      );
      return rows[0]?.doc;
    });
  }

  facets(query: CatalogueQuery): Promise<Omit<Facets, 'generated_at'>> {
    return guarded(this.backend, async () => {
      const whole = await this.catalogueFacets();
      const filtered = releaseFilterParameters.some((name) => query.filters[name].length > 0);
      if (!filtered && !query.search) {
        return { ...perFilter((name) => whole.values[name].map(facetValue)), total: whole.total };
      }
      // While the catalogue is being read, wait for it: counting in the database takes seconds at a million
      // releases (and slows the read down), where the read itself takes about as long once.
      let index = this.catalogueIndex();
      if (!index && this.cache.indexBuild) {
        await this.cache.indexBuild;
        index = this.catalogueIndex();
      }
      if (index) {
        const { counts, total } = index.facetsInContext(query);
        return { ...listFacets(query.filters, whole.display, counts), total };
      }
      return this.facetsInContext(query, whole);
    });
  }

  async warmUp(): Promise<void> {
    if (!this.options.index) return;
    // Nothing may be kept before the catalogue's version is known (on PostgreSQL, once its first poll answers).
    await pollUntil(() => this.cache.stamp(this.backend) !== undefined, { timeoutMs: 5_000, intervalMs: 50 });
    this.catalogueIndex();
    await this.cache.indexBuild;
  }

  /** The facets of the whole catalogue, kept for as long as it stays the same. */
  private async catalogueFacets(): Promise<CatalogueFacets> {
    const stamp = this.cache.stamp(this.backend);
    if (stamp !== undefined && this.cache.facets) return this.cache.facets;
    const facets = await this.readFacets();
    if (this.cache.current(stamp)) this.cache.facets = facets;
    return facets;
  }

  private async readFacets(): Promise<CatalogueFacets> {
    const rows = await this.backend.read(
      this.backend.db
        .selectFrom('facet_values')
        .select(['kind', 'value_key', 'display', 'release_count'])
        .where('kind', 'in', filterKinds)
        .where('release_count', '>', 0)
        .orderBy('release_count', 'desc')
        .orderBy('value_key', 'asc')
        .compile(),
    );
    const values = perFilter((name): FacetEntry[] =>
      rows
        .filter((row) => row.kind === tagKinds[name])
        .map((row) => ({ key: row.value_key, value: row.display, count: row.release_count })),
    );
    const dates = await this.backend.read<{ first: string | null; last: string | null }>(
      this.backend.db
        .selectFrom('releases')
        .select((eb) => [eb.fn.min('release_date').as('first'), eb.fn.max('release_date').as('last')])
        .compile(),
    );
    const { first, last } = dates[0] ?? {};
    return {
      values,
      display: perFilter((name) => new Map(values[name].map((entry) => [entry.key, entry.value]))),
      total: await this.countAll(),
      dates: first && last ? { first, last } : undefined,
    };
  }

  /**
   * The catalogue in memory for this generation, or undefined while it is read (the first call starts that, in
   * the background; callers count in the database meanwhile).
   */
  private catalogueIndex(): CatalogueIndex | undefined {
    const cache = this.cache;
    if (!this.options.index) return undefined;
    const stamp = cache.stamp(this.backend);
    if (stamp === undefined) return undefined;
    if (cache.index) return cache.index;
    cache.indexBuild ??= this.readIndex()
      .then((index) => {
        // Kept only if the catalogue stayed the same while it was read (asking the backend again: the read
        // took a while, and another process may have written meanwhile).
        if (cache.stamp(this.backend) === stamp && cache.current(stamp)) cache.index = index;
      })
      .catch(() => undefined)
      .finally(() => (cache.indexBuild = undefined));
    return undefined;
  }

  /**
   * Reads every release in page order, then every filter value, in batches, with turns for other requests in
   * between.
   */
  private async readIndex(): Promise<CatalogueIndex> {
    const version = await this.catalogueVersion();
    const builder = CatalogueIndex.builder(version);
    const batchSize = indexBatchSize(this.backend);
    for (let after: { release_date: string; id: string } | undefined; ;) {
      const rows = await this.backend.read(releasesBatch(after, batchSize).compile(this.backend.db));
      for (const row of rows) builder.release(row);
      if (rows.length < batchSize) break;
      after = rows[rows.length - 1];
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let after: FilterValueRow | undefined; ;) {
      const rows = await this.backend.read(postingsBatch(after, batchSize).compile(this.backend.db));
      // In the primary key's order, so each filter's rows are one run of the batch.
      for (let from = 0; from < rows.length;) {
        const kind = rows[from]!.kind;
        let to = from + 1;
        while (to < rows.length && rows[to]!.kind === kind) to++;
        const filter = filterOfKind.get(kind);
        if (filter === undefined) throw new Error(`not a filter's kind: ${kind}`);
        builder.values(filter, rows.slice(from, to));
        from = to;
      }
      if (rows.length < batchSize) break;
      after = rows[rows.length - 1];
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A write while it was read (by this process or another): not kept.
    if ((await this.catalogueVersion()) !== version) throw new Error('the catalogue changed while it was read');
    return builder.done();
  }

  /** Runs `each` over the parts of `matching` (one part, unless reads hold the process and it is big). */
  private async inParts(
    matching: Matching,
    whole: CatalogueFacets,
    each: (part: RawBuilder<unknown>) => Promise<void>,
  ): Promise<void> {
    const parts = this.backend.synchronousReads ? Math.ceil(matching.estimate / matchesPerPart) : 1;
    for (const dates of dateSpans(whole.dates, parts)) {
      await each(matching.select(dates));
      if (parts > 1) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * The facets in context counted in the database, pass by pass (`catalogue/facets.ts`), the passes side by
   * side (on PostgreSQL's pool).
   */
  private async facetsInContext(query: CatalogueQuery, whole: CatalogueFacets): Promise<Omit<Facets, 'generated_at'>> {
    const counts = await this.keyCounts(query.search);
    const passes = facetPasses(query.filters);
    const counted = await Promise.all(
      passes.map(async ({ filters, except }): Promise<PassCount> => {
        const matching = matchingReleases(query, counts, except === undefined ? undefined : tagKinds[except]);
        if (matching === 'nothing') return { counts: {}, total: 0 };
        if (matching === undefined) {
          const counts: PassCount['counts'] = {};
          for (const name of filters) counts[name] = new Map(whole.values[name].map((e) => [e.key, e.count]));
          return { counts, total: whole.total };
        }
        const pass: PassCount = { counts: {}, total: 0 };
        for (const name of filters) pass.counts[name] = new Map();
        const kinds = filters.map((name) => tagKinds[name] as number);
        await this.inParts(matching, whole, async (part) => {
          const [values, total] = await Promise.all([
            kinds.length === 0 ? [] : this.backend.read(facetCountsQuery(part, kinds).compile(this.backend.db)),
            // Only the whole query's pass gives the total.
            except === undefined ? this.backend.read(matchCountQuery(part).compile(this.backend.db)) : [],
          ]);
          for (const row of values) {
            const values = pass.counts[filterOfKind.get(row.kind)!];
            values?.set(row.value_key, (values.get(row.value_key) ?? 0) + Number(row.n));
          }
          pass.total += Number(total[0]?.n ?? 0);
        });
        return pass;
      }),
    );
    const { counts: values, total } = combinePasses(passes, counted);
    return { ...listFacets(query.filters, whole.display, values), total };
  }

  private async countAll(): Promise<number> {
    const rows = await this.backend.read(
      this.backend.db
        .selectFrom('releases')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .compile(),
    );
    return Number(rows[0]?.n ?? 0);
  }

  countReleases(): Promise<number> {
    return guarded(this.backend, () => this.countAll());
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

const facetValue = (entry: FacetEntry): FacetValue => ({ value: entry.value, count: entry.count });

/** The catalogue's version, read in the same statement as a page's documents. */
const currentVersion = sql<number | string>`(select version from catalogue_state where id = 1)`;

/**
 * Whether a page is found in memory (`CatalogueIndex`, once the catalogue is read) rather than by the database's
 * plan. Measured at a million releases, one request at a time: in memory a page takes 0.1-1.7 ms whatever the
 * query, documents included, where the database's plan takes 0.1 ms to seconds (a Latin and a Japanese term that
 * never share a title: 0.3-1.7 s on SQLite, 0.7-3 s on PostgreSQL, every match of the rarer term probed). But
 * where reads are in-process (SQLite) and the query is one index range in page order (no search, at most one
 * filter), the database reads a page in 60-110 µs against 115-165 µs in memory (which then reads the documents
 * by primary key): those stay with the database. On PostgreSQL every page is one round trip either way: the
 * whole catalogue by date is the database's (0.35 against 0.58 ms), a filter memory's (0.5 against 1.0 ms).
 */
function fromMemory(request: ReleasePageRequest, backend: Backend): boolean {
  if (request.search !== undefined) return true;
  const filters = releaseFilterParameters.filter((name) => request.filters[name].length > 0).length;
  return filters >= (backend.synchronousReads ? 2 : 1);
}

/**
 * Rows read at once when building the `CatalogueIndex`. Few where each batch holds the process while it is read
 * (SQLite: at 1M, batches of 20,000 made first requests after a start wait 0.7-2.5 s); many where reads are a
 * round trip that holds nothing (PostgreSQL: batches of 2,000 took 41 s at 1M, mostly round trips).
 */
const indexBatchSize = (backend: Backend) => (backend.synchronousReads ? 2_000 : 20_000);

/** A batch of releases in page order (the `releases_by_date` index), after `after`. */
function releasesBatch(after: { release_date: string; id: string } | undefined, size: number) {
  const from = after ? sql`where (release_date, id) > (${after.release_date}, ${after.id})` : sql``;
  return sql<{ id: string; release_date: string; search_title: string; search_artist: string }>`
    select id, release_date, search_title, search_artist
    from releases ${from} order by release_date, id limit ${size}`;
}

/**
 * A batch of filter values after `after`, in the primary key's order (kind, value, date, release): one range of
 * it, read where the last batch stopped. (By release, SQLite sorts every filter value for each batch: 430 ms a
 * batch at a million releases.)
 */
function postingsBatch(after: FilterValueRow | undefined, size: number) {
  const [first, last] = [Math.min(...filterKinds), Math.max(...filterKinds)];
  const from = after
    ? sql`(kind, value_key, release_date, release_id) > (${after.kind}, ${after.value_key}, ${after.release_date}, ${after.release_id}) and kind <= ${last}`
    : sql`kind between ${first} and ${last}`;
  return sql<FilterValueRow>`select kind, value_key, release_date, release_id from release_tags where ${from}
    order by kind, value_key, release_date, release_id limit ${size}`;
}

interface FilterValueRow {
  kind: number;
  value_key: string;
  release_date: string;
  release_id: string;
}
