import { releaseFilterParameters } from '@releases/contract';
import { sql, type RawBuilder } from 'kysely';
import type { FilterKeys } from '../../catalogue/filters.js';
import { indexedPrefixLength, indexedTerm, type Search } from '../../catalogue/search-text.js';
import { searchKinds, tagKinds } from '../schema.js';
import type { CatalogueQuery, ReleasePageRequest, ReleasePosition } from '../../catalogue/query.js';

/**
 * How many releases carry an index key (`release_tags` kind and value), read from `facet_values`; used only
 * to choose the cheapest plan, so a stale or missing count can make a plan slower, never a result wrong.
 */
export type KeyCounts = (kind: number, key: string) => number;

/**
 * One condition a release must meet: it has an index row whose kind is one of `kinds` and whose key is one of
 * `keys` (one of the two lists has a single element). A filter is one kind and its values; a search term is its
 * key in the title's or the artist's kind.
 */
interface Condition {
  kinds: number[];
  keys: string[];
  /** Releases the condition's index ranges hold (an upper bound of its matches). */
  estimate: number;
}

/**
 * A set of releases as the index finds it: every condition met, then every check (an exact predicate on the
 * release's stored fields, `field`, for what the index keys only narrow down: long words, longer CJK terms, the
 * tiers).
 */
interface Plan {
  conditions: Condition[];
  checks: RawBuilder<unknown>[];
}

function condition(kinds: number[], keys: string[], counts: KeyCounts): Condition {
  let estimate = 0;
  for (const kind of kinds) for (const key of keys) estimate += counts(kind, key);
  return { kinds, keys, estimate };
}

function filterConditions(filters: FilterKeys, counts: KeyCounts, except?: number): Condition[] {
  return releaseFilterParameters
    .filter((name) => filters[name].length > 0 && tagKinds[name] !== except)
    .map((name) => condition([tagKinds[name]], filters[name], counts));
}

/**
 * A stored field of the candidate `t`'s release, read by primary key: a scalar subquery, which both planners run
 * once per candidate. (Written as a join, PostgreSQL may hash-join it against the whole table.)
 */
const field = (name: 'search_title' | 'search_artist') =>
  sql`(select r.${sql.ref(name)} from releases r where r.id = t.release_id)`;

/** `name` holds the term: a Latin word beginning with it, or a CJK run containing it. */
const holds = (name: 'search_title' | 'search_artist', pattern: string) => sql`${field(name)} like ${pattern}`;

/** Every term of the search, in the title or the artist (the list's matches, SPEC §3.6). */
function searchPlan(search: Search, counts: KeyCounts): Plan {
  const plan: Plan = { conditions: [], checks: [] };
  const fields = [searchKinds.titleWord, searchKinds.artistWord];
  for (const token of search.tokens) {
    const term = indexedTerm(token);
    for (const key of term.keys) plan.conditions.push(condition(fields, [key], counts));
    if (!term.exact) {
      plan.checks.push(sql`(${holds('search_title', term.pattern)} or ${holds('search_artist', term.pattern)})`);
    }
  }
  return plan;
}

/** The title starts with the whole search (tier 1, and tier 0 within it). */
function titleStartPlan(search: Search, counts: KeyCounts): Plan {
  const start = search.text.slice(1);
  const key = [...start].slice(0, indexedPrefixLength).join('');
  return {
    conditions: [condition([searchKinds.titleStart], [key], counts)],
    checks: [...start].length > indexedPrefixLength ? [sql`${field('search_title')} like ${`${search.text}%`}`] : [],
  };
}

/** Every term is in the title. */
function allInTitle(search: Search): RawBuilder<unknown> {
  return sql.join(
    search.tokens.map((token) => holds('search_title', indexedTerm(token).pattern)),
    sql` and `,
  );
}

/**
 * The plan of one relevance tier; undefined for tier 0, which has an index of its own (the stored title).
 * - 1: the title starts with `q` but is not it: the title's beginning is a key of the index.
 * - 2: every term is in the title, which does not start with `q`: the terms' keys in the title.
 * - 3: the rest: some term is only in the artist, so the artist holds one of them: those keys, OR-ed.
 */
function tierPlan(tier: number, search: Search, counts: KeyCounts): Plan | undefined {
  const startsWithSearch = sql`${field('search_title')} like ${`${search.text}%`}`;
  switch (tier) {
    case 1: {
      const plan = titleStartPlan(search, counts);
      return { conditions: plan.conditions, checks: [...plan.checks, sql`${field('search_title')} <> ${search.text}`] };
    }
    case 2: {
      const plan: Plan = { conditions: [], checks: [sql`not (${startsWithSearch})`] };
      for (const token of search.tokens) {
        const term = indexedTerm(token);
        for (const key of term.keys) plan.conditions.push(condition([searchKinds.titleWord], [key], counts));
        if (!term.exact) plan.checks.push(holds('search_title', term.pattern));
      }
      return plan;
    }
    case 3: {
      const plan = searchPlan(search, counts);
      const artistKeys = search.tokens.map((token) => indexedTerm(token).keys[0]!);
      plan.conditions.push(condition([searchKinds.artistWord], [...new Set(artistKeys)], counts));
      plan.checks.push(sql`not (${allInTitle(search)})`);
      return plan;
    }
    default:
      return undefined;
  }
}

/** `exists` an index row of `c` for the release `id` (the `release_tags_by_release` index). */
function has(c: Condition, id: RawBuilder<unknown>): RawBuilder<unknown> {
  const kinds = c.kinds.length === 1 ? sql`o.kind = ${c.kinds[0]}` : sql`o.kind in (${sql.join(c.kinds)})`;
  const keys = c.keys.length === 1 ? sql`o.value_key = ${c.keys[0]}` : sql`o.value_key in (${sql.join(c.keys)})`;
  return sql`exists (select 1 from release_tags o where o.release_id = ${id} and ${kinds} and ${keys})`;
}

type Direction = 'desc' | 'asc';

interface Scan {
  direction: Direction;
  after: ReleasePosition | undefined;
  fetch: number;
}

/**
 * The releases of `plan` in page order, at most `fetch` after `after`, as (release_id, release_date).
 *
 * Driven by the most selective condition: each of its keys is one range of the `release_tags` primary key,
 * already in page order, read with its own LIMIT; the other conditions are index probes
 * (`release_tags_by_release`) on each candidate, the checks a look at its row by primary key. The union of at most
 * `fetch × keys` candidates is sorted and cut. A selective condition touches only its own few rows, and a broad
 * one stops after a page instead of materialising every match. No OFFSET anywhere. The row-value comparison
 * `(date, id) < (?, ?)` is a single index range in both SQLite and PostgreSQL.
 */
function scanCandidates(plan: Plan, scan: Scan): RawBuilder<unknown> {
  const direction = sql.raw(scan.direction);
  const comparison = scan.direction === 'desc' ? sql`<` : sql`>`;
  const [driver, ...others] = [...plan.conditions].sort((a, b) => a.estimate - b.estimate) as [
    Condition,
    ...Condition[],
  ];
  const where = [
    ...(scan.after
      ? [sql`(t.release_date, t.release_id) ${comparison} (${scan.after.releaseDate}, ${scan.after.id})`]
      : []),
    ...others.map((c) => has(c, sql`t.release_id`)),
    ...plan.checks,
  ].map((predicate) => sql` and ${predicate}`);
  const branches: RawBuilder<unknown>[] = [];
  for (const kind of driver.kinds) {
    for (const key of driver.keys) {
      branches.push(sql`select release_id, release_date from (
        select t.release_id, t.release_date from release_tags t
        where t.kind = ${kind} and t.value_key = ${key}${sql.join(where, sql``)}
        order by t.release_date ${direction}, t.release_id ${direction} limit ${scan.fetch}
      ) as ${sql.raw(`b${branches.length}`)}`);
    }
  }
  // UNION (not UNION ALL): a release under two of the driver's keys must appear once.
  return branches.length === 1 ? branches[0]! : sql.join(branches, sql` union `);
}

/** A page of `plan`'s releases, with their documents. */
function pageOf(plan: Plan, scan: Scan): RawBuilder<PageRow> {
  const direction = sql.raw(scan.direction);
  if (plan.conditions.length === 0) {
    const after = scan.after
      ? sql`where (release_date, id) ${scan.direction === 'desc' ? sql`<` : sql`>`} (${scan.after.releaseDate}, ${scan.after.id})`
      : sql``;
    return sql<PageRow>`select doc, release_date, id from releases ${after}
      order by release_date ${direction}, id ${direction} limit ${scan.fetch}`;
  }
  return sql<PageRow>`select r.doc, r.release_date, r.id
    from (${scanCandidates(plan, scan)}) as m join releases r on r.id = m.release_id
    order by m.release_date ${direction}, m.release_id ${direction} limit ${scan.fetch}`;
}

/** Tier 0: the title equals the search, on `releases_by_search_title`, newest first. */
function exactTitlePage(search: Search, filters: Condition[], scan: Scan): RawBuilder<PageRow> {
  const after = scan.after ? sql`and (r.release_date, r.id) < (${scan.after.releaseDate}, ${scan.after.id})` : sql``;
  const checks = filters.map((c) => sql` and ${has(c, sql`r.id`)}`);
  return sql<PageRow>`select r.doc, r.release_date, r.id from releases r
    where r.search_title = ${search.text} ${after}${sql.join(checks, sql``)}
    order by r.release_date desc, r.id desc limit ${scan.fetch}`;
}

/**
 * The query for one page (SPEC §3.1, §3.6, keyset pagination), or under `sort=relevance` one query per tier
 * (`relevanceTiers`), run in turn from the cursor's tier until the page is full.
 */
export function buildReleasePageQuery(
  request: ReleasePageRequest & { tier?: number },
  counts: KeyCounts,
): RawBuilder<PageRow> | undefined {
  const fetch = request.limit + 1;
  const filters = filterConditions(request.filters, counts);
  const search = request.search;
  if (search && search.tokens.length === 0) return undefined;
  if (request.sort !== 'relevance' || !search) {
    const plan: Plan = search ? searchPlan(search, counts) : { conditions: [], checks: [] };
    plan.conditions.push(...filters);
    return pageOf(plan, { direction: request.sort === 'release_date' ? 'asc' : 'desc', after: request.after, fetch });
  }
  const tier = request.tier ?? 0;
  const scan: Scan = { direction: 'desc', after: request.after?.tier === tier ? request.after : undefined, fetch };
  const plan = tierPlan(tier, search, counts);
  if (!plan) return exactTitlePage(search, filters, scan);
  plan.conditions.push(...filters);
  return pageOf(plan, scan);
}

/** The keys of `release_tags` a query's plans may look up, whose counts `KeyCounts` must answer. */
export function searchKeys(search: Search | undefined): Array<{ kind: number; key: string }> {
  if (!search) return [];
  const keys: Array<{ kind: number; key: string }> = [];
  for (const token of search.tokens) {
    for (const key of indexedTerm(token).keys) {
      keys.push({ kind: searchKinds.titleWord, key }, { kind: searchKinds.artistWord, key });
    }
  }
  const start = [...search.text.slice(1)].slice(0, indexedPrefixLength).join('');
  if (start) keys.push({ kind: searchKinds.titleStart, key: start });
  return keys;
}

/** Release dates from `from` (inclusive) to `to` (exclusive), `YYYY-MM-DD`; either end may be open. */
export interface DateSpan {
  from?: string | undefined;
  to?: string | undefined;
}

/** The releases matching a query, as the facets in context count over them. */
export interface Matching {
  /** At most this many releases (the driving condition's count). */
  estimate: number;
  /**
   * `select release_id` of the matches, without order or limit; with `dates`, only those released then (the
   * driving range cut by date, so that big sets can be counted a part at a time).
   */
  select(dates?: DateSpan): RawBuilder<unknown>;
}

/**
 * The releases matching a query (the facets in context count over them). `exceptKind` leaves that filter out
 * (its own counts are over the other filters). Undefined when the query has no condition at all (the whole
 * catalogue), `nothing` for a search with no tokens.
 */
export function matchingReleases(
  query: CatalogueQuery,
  counts: KeyCounts,
  exceptKind?: number,
): Matching | undefined | 'nothing' {
  if (query.search && query.search.tokens.length === 0) return 'nothing';
  const plan: Plan = query.search ? searchPlan(query.search, counts) : { conditions: [], checks: [] };
  plan.conditions.push(...filterConditions(query.filters, counts, exceptKind));
  if (plan.conditions.length === 0) return undefined;
  const [driver, ...others] = [...plan.conditions].sort((a, b) => a.estimate - b.estimate) as [
    Condition,
    ...Condition[],
  ];
  const kinds =
    driver.kinds.length === 1 ? sql`t.kind = ${driver.kinds[0]}` : sql`t.kind in (${sql.join(driver.kinds)})`;
  const keys =
    driver.keys.length === 1 ? sql`t.value_key = ${driver.keys[0]}` : sql`t.value_key in (${sql.join(driver.keys)})`;
  const where = [...others.map((c) => has(c, sql`t.release_id`)), ...plan.checks].map((p) => sql` and ${p}`);
  return {
    estimate: driver.estimate,
    select: (dates) => {
      const from = dates?.from === undefined ? sql`` : sql` and t.release_date >= ${dates.from}`;
      const to = dates?.to === undefined ? sql`` : sql` and t.release_date < ${dates.to}`;
      return sql`select distinct t.release_id from release_tags t
        where ${kinds} and ${keys}${from}${to}${sql.join(where, sql``)}`;
    },
  };
}

/**
 * Each value of the filters `kinds` with its number of releases among `matching` (the facets in context). The
 * filters' kinds are adjacent numbers, read as one range of each match's values.
 */
export function facetCountsQuery(matching: RawBuilder<unknown>, kinds: number[]): RawBuilder<FacetCountRow> {
  // CROSS JOIN: SQLite then keeps the matches as the outer loop and probes each one's values
  // (`release_tags_by_release`); left to itself it may walk every value of the kind and scan the matches for
  // each. PostgreSQL plans it as any join. Rows of a kind between those asked for are the caller's to skip.
  return sql<FacetCountRow>`select f.kind, f.value_key, count(*) as n from (${matching}) as m
    cross join release_tags f
    where f.release_id = m.release_id and f.kind between ${Math.min(...kinds)} and ${Math.max(...kinds)}
    group by f.kind, f.value_key`;
}

/** How many releases `matching` holds. */
export function matchCountQuery(matching: RawBuilder<unknown>): RawBuilder<{ n: number | string }> {
  return sql<{ n: number | string }>`select count(*) as n from (${matching}) as m`;
}

export interface FacetCountRow {
  kind: number;
  value_key: string;
  /** A count: PostgreSQL's `bigint` arrives as text. */
  n: number | string;
}

export interface PageRow {
  doc: string;
  release_date: string;
  id: string;
}
