import {
  defaultSortOrder,
  isLanguageTag,
  limits,
  releaseFilterParameters,
  sortOrders,
  splitCommaList,
  type ReleaseFilterParameter,
  type SortOrder,
  writtenTextProblem,
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

/** Something a URL asked for that the page left out, and why, to tell the person. */
export interface DroppedPart {
  parameter: string;
  value: string;
  reason: string;
}

const knownParameters = new Set<string>([...releaseFilters, 'sort']);

/**
 * Reads the query from a URL's search string, and says what it left out. Read the way the API reads it
 * (trimmed, empty items dropped, repeated parameters merged, duplicates collapsed case-insensitively); what
 * the API would refuse (a malformed language tag, too many or too long values, control characters, an unknown
 * sort or parameter) is dropped, so a hand-edited link still shows a page rather than an error.
 */
export function readReleaseQuery(search: string): { query: ReleaseQuery; dropped: DroppedPart[] } {
  const params = new URLSearchParams(search);
  const query: ReleaseQuery = { ...emptyReleaseQuery };
  const dropped: DroppedPart[] = [];
  for (const filter of releaseFilters) {
    const kept: string[] = [];
    for (const value of splitCommaList(params.getAll(filter))) {
      let reason: string | undefined;
      if (value.length > limits.maxFilterValueLength)
        reason = `is longer than ${limits.maxFilterValueLength} characters`;
      else if (writtenTextProblem(value) !== undefined) reason = 'contains characters a filter cannot hold';
      else if (filter === 'languages' && !isLanguageTag(value)) reason = 'is not a language tag (like ja or en)';
      else if (kept.length >= limits.maxFilterValues)
        reason = `is past the ${limits.maxFilterValues} values a filter takes`;
      if (reason) dropped.push({ parameter: filter, value, reason });
      else kept.push(value);
    }
    query[filter] = kept;
  }
  const sort = params.get('sort')?.trim();
  const order = sortOrders.find((o) => o === sort);
  if (sort && !order) dropped.push({ parameter: 'sort', value: sort, reason: 'is not a sort order' });
  query.sort = order ?? defaultSortOrder;
  for (const name of new Set(params.keys())) {
    if (!knownParameters.has(name))
      dropped.push({ parameter: name, value: params.get(name) ?? '', reason: 'is not something the list takes' });
  }
  return { query, dropped };
}

/** The query in a URL's search string (see `readReleaseQuery`, which also says what was left out). */
export function parseReleaseQuery(search: string): ReleaseQuery {
  return readReleaseQuery(search).query;
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
