import {
  defaultSortOrder,
  limits,
  releaseFilterParameters,
  sortOrders,
  splitCommaList,
  type ReleaseFilterParameter,
  type SortOrder,
} from '@releases/contract/wire';

/**
 * What the releases page shows: the chosen filters and the sort. It lives in the URL, in the API's own
 * parameter names and comma-separated form (`?vocaloid_banks=Hatsune%20Miku,GUMI&sort=release_date`), so a
 * link can be shared, the browser's Back and Forward step through earlier choices, and the URL can be pasted
 * straight after `/api/v1/release`.
 */
export type ReleaseQuery = Record<ReleaseFilterParameter, string[]> & { sort: SortOrder };

export type ReleaseFilter = ReleaseFilterParameter;
const releaseFilters = releaseFilterParameters;

export const emptyReleaseQuery: ReleaseQuery = {
  vocaloid_banks: [],
  genres: [],
  languages: [],
  sort: defaultSortOrder,
};

/**
 * Reads the query from a URL's search string. Read the way the API reads it (trimmed, empty items dropped,
 * repeated parameters merged, duplicates collapsed case-insensitively); what the API would refuse (too many
 * or too long values, an unknown sort) is dropped, so a hand-edited link still shows a page.
 */
export function parseReleaseQuery(search: string): ReleaseQuery {
  const params = new URLSearchParams(search);
  const query: ReleaseQuery = { ...emptyReleaseQuery };
  for (const filter of releaseFilters) {
    query[filter] = splitCommaList(params.getAll(filter))
      .filter((value) => value.length <= limits.maxFilterValueLength)
      .slice(0, limits.maxFilterValues);
  }
  const sort = params.get('sort')?.trim();
  query.sort = sortOrders.find((order) => order === sort) ?? defaultSortOrder;
  return query;
}

/**
 * The search string for a query (`''` for the default view). Commas are kept literal between values, as the
 * API documents them; each value is percent-encoded (filter values never contain a comma).
 */
export function formatReleaseQuery(query: ReleaseQuery): string {
  const parts: string[] = [];
  for (const filter of releaseFilters) {
    if (query[filter].length > 0) parts.push(`${filter}=${query[filter].map(encodeURIComponent).join(',')}`);
  }
  if (query.sort !== defaultSortOrder) parts.push(`sort=${query.sort}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** Whether a value is chosen in a filter (case-insensitively, as the API matches). */
export function isChosen(query: ReleaseQuery, filter: ReleaseFilter, value: string): boolean {
  const key = value.toLowerCase();
  return query[filter].some((chosen) => chosen.toLowerCase() === key);
}

/** The query with a value added to, or removed from, one filter. */
export function toggleValue(query: ReleaseQuery, filter: ReleaseFilter, value: string): ReleaseQuery {
  const key = value.toLowerCase();
  const values = isChosen(query, filter, value)
    ? query[filter].filter((chosen) => chosen.toLowerCase() !== key)
    : [...query[filter], value].slice(0, limits.maxFilterValues);
  return { ...query, [filter]: values };
}

export function hasFilters(query: ReleaseQuery): boolean {
  return releaseFilters.some((filter) => query[filter].length > 0);
}
