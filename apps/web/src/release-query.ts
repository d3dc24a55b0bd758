import {
  defaultSearchSortOrder,
  defaultSortOrder,
  isLanguageTag,
  limits,
  releaseFilterParameters,
  searchTextProblem,
  sortOrders,
  splitCommaList,
  type ReleaseFilterParameter,
  type SortOrder,
  writtenTextProblem,
} from '@releases/contract/wire';

/**
 * What narrows the catalogue: the chosen filters and the search text (`''` for none). The list and the
 * facets (counts in context, the number of matches) are both asked with it.
 */
export type CatalogueQuery = Record<ReleaseFilterParameter, string[]> & { q: string };

/**
 * What the releases page shows: the filters, the search and the sort. It lives in the URL, in the API's own
 * parameter names and comma-separated form (`?q=melt&vocaloid_banks=Hatsune%20Miku,GUMI&sort=release_date`),
 * so a link can be shared, the browser's Back and Forward step through earlier choices, and the URL can be
 * pasted straight after `/api/v1/release`. `relevance` is a sort only with a search (the API refuses it
 * otherwise), where it is the default.
 */
export type ReleaseQuery = CatalogueQuery & { sort: SortOrder };

export type ReleaseFilter = ReleaseFilterParameter;
const releaseFilters = releaseFilterParameters;

export const emptyReleaseQuery: ReleaseQuery = {
  vocaloid_banks: [],
  genres: [],
  languages: [],
  q: '',
  sort: defaultSortOrder,
};

/** The sort the API uses when none is given: relevance for a search, else newest first. */
function defaultSortFor(q: string): SortOrder {
  return q ? defaultSearchSortOrder : defaultSortOrder;
}

/** The sorts that can be asked for with this search text (`relevance` only with one). */
export function sortOrdersFor(q: string): SortOrder[] {
  return q ? [...sortOrders] : sortOrders.filter((order) => order !== 'relevance');
}

/** Something a URL asked for that the page left out, and why, to tell the person. */
export interface DroppedPart {
  parameter: string;
  value: string;
  reason: string;
}

const knownParameters = new Set<string>([...releaseFilters, 'q', 'sort']);

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
  // Given more than once, the first search is read (the API would refuse the address).
  const [q = '', ...extra] = params.getAll('q').map((text) => text.trim());
  const qProblem = q ? searchTextProblem(q) : undefined;
  if (qProblem) dropped.push({ parameter: 'q', value: q, reason: qProblem });
  else query.q = q;
  for (const text of extra) {
    if (text) dropped.push({ parameter: 'q', value: text, reason: 'is a second search (one is read)' });
  }
  const sort = params.get('sort')?.trim();
  const order = sortOrders.find((o) => o === sort);
  if (sort && !order) dropped.push({ parameter: 'sort', value: sort, reason: 'is not a sort order' });
  else if (order === 'relevance' && !query.q) {
    dropped.push({ parameter: 'sort', value: order, reason: 'is a sort for a search only' });
  }
  query.sort = order && sortOrdersFor(query.q).includes(order) ? order : defaultSortFor(query.q);
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
 * API documents them; each value is percent-encoded (filter values never contain a comma). The sort is left
 * out when it is the API's default for the query (relevance with a search, newest first without).
 */
export function formatReleaseQuery(query: ReleaseQuery): string {
  const parts = catalogueParts(query);
  if (query.sort !== defaultSortFor(query.q)) parts.push(`sort=${query.sort}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/**
 * The search string of what narrows the catalogue, without the sort (`''` for the whole catalogue): the key of
 * the facets' answer, which the sort does not change.
 */
export function formatCatalogueQuery(query: CatalogueQuery): string {
  const parts = catalogueParts(query);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function catalogueParts(query: CatalogueQuery): string[] {
  const parts: string[] = [];
  if (query.q) parts.push(`q=${encodeURIComponent(query.q)}`);
  for (const filter of releaseFilters) {
    if (query[filter].length > 0) parts.push(`${filter}=${query[filter].map(encodeURIComponent).join(',')}`);
  }
  return parts;
}

/**
 * The query with another search text (trimmed). Starting a search from the default order ranks by relevance;
 * an order chosen by hand (oldest first) is kept; ending a search that was ranked by relevance goes back to
 * newest first, since relevance means nothing without one.
 */
export function withSearch(query: ReleaseQuery, text: string): ReleaseQuery {
  const q = text.trim();
  let sort = query.sort;
  if (!q && sort === 'relevance') sort = defaultSortOrder;
  else if (q && !query.q && sort === defaultSortOrder) sort = defaultSearchSortOrder;
  return { ...query, q, sort };
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

export function hasFilters(query: CatalogueQuery): boolean {
  return releaseFilters.some((filter) => query[filter].length > 0);
}

/** The query without its filters (the search and the sort kept). */
export function withoutFilters(query: ReleaseQuery): ReleaseQuery {
  return { ...emptyReleaseQuery, q: query.q, sort: query.sort };
}
