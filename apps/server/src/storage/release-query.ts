import { releaseFilterParameters } from '@releases/contract';
import { sql, type RawBuilder } from 'kysely';
import type { FilterKeys } from '../catalogue/filters.js';
import { tagKinds, type TagKind } from './schema.js';
import type { ReleasePageRequest } from './interface.js';

/** How many releases carry each filter value, per kind; used only to choose the cheapest plan. */
export type TagStatistics = ReadonlyMap<number, ReadonlyMap<string, number>>;

interface ActiveFilter {
  kind: TagKind;
  keys: string[];
  /** Estimated number of releases the filter's index ranges hold. */
  estimate: number;
}

function activeFilters(filters: FilterKeys, stats: TagStatistics): ActiveFilter[] {
  const active: ActiveFilter[] = [];
  for (const name of releaseFilterParameters) {
    const keys = filters[name];
    if (keys.length === 0) continue;
    const kind = tagKinds[name];
    const counts = stats.get(kind);
    // Unknown values count as 0 for planning only; they are still queried, so stale statistics can make a
    // plan slower but never a result wrong.
    const estimate = keys.reduce((sum, key) => sum + (counts?.get(key) ?? 0), 0);
    active.push({ kind, keys, estimate });
  }
  return active;
}

/**
 * Builds the query for one page (SPEC §3.1, keyset pagination).
 *
 * - No filter: walk `releases_by_date` from the cursor.
 * - Filters: drive from the most selective filter. Each of its values is one range of the `release_tags`
 *   primary key, already in page order, read with its own LIMIT; the other filters are index probes
 *   (`release_tags_by_release`) on each candidate. The union of at most `limit × values` candidates is sorted
 *   and cut. A selective filter therefore touches only its own few rows, and a broad one stops after a page
 *   instead of materialising every match. No OFFSET anywhere.
 *
 * The row-value comparison `(date, id) < (?, ?)` is a single index range in both SQLite and PostgreSQL.
 */
export function buildReleasePageQuery(request: ReleasePageRequest, stats: TagStatistics): RawBuilder<PageRow> {
  const descending = request.sort === '-release_date';
  const direction = descending ? sql`desc` : sql`asc`;
  const comparison = descending ? sql`<` : sql`>`;
  const fetch = request.limit + 1;
  const filters = activeFilters(request.filters, stats);

  if (filters.length === 0) {
    const after = request.after
      ? sql`where (release_date, id) ${comparison} (${request.after.releaseDate}, ${request.after.id})`
      : sql``;
    return sql<PageRow>`select doc, release_date, id from releases ${after}
      order by release_date ${direction}, id ${direction} limit ${fetch}`;
  }

  const [driver, ...others] = [...filters].sort((a, b) => a.estimate - b.estimate) as [ActiveFilter, ...ActiveFilter[]];
  const otherChecks = others.map(
    (filter) => sql`and exists (select 1 from release_tags o where o.release_id = t.release_id
      and o.kind = ${filter.kind} and o.value_key in (${sql.join(filter.keys)}))`,
  );
  const after = request.after
    ? sql`and (t.release_date, t.release_id) ${comparison} (${request.after.releaseDate}, ${request.after.id})`
    : sql``;

  const branches = driver.keys.map(
    (key, index) => sql`select release_id, release_date from (
      select t.release_id, t.release_date from release_tags t
      where t.kind = ${driver.kind} and t.value_key = ${key} ${after} ${sql.join(otherChecks, sql` `)}
      order by t.release_date ${direction}, t.release_id ${direction} limit ${fetch}
    ) as ${sql.raw(`b${index}`)}`,
  );
  // UNION (not UNION ALL): a release with two of the driver's values must appear once.
  const candidates = branches.length === 1 ? branches[0]! : sql.join(branches, sql` union `);

  return sql<PageRow>`select r.doc, r.release_date, r.id
    from (${candidates}) as m join releases r on r.id = m.release_id
    order by m.release_date ${direction}, m.release_id ${direction} limit ${fetch}`;
}

export interface PageRow {
  doc: string;
  release_date: string;
  id: string;
}
