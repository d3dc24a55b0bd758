import { sortOrders, type SortOrder } from '@releases/contract/wire';
import { useEffect, useId, useMemo, useState } from 'react';
import { errorMessage, type Facets, type Release } from '../api.js';
import { useApi } from '../api-context.js';
import { FacetFilter } from '../components/facet-filter.js';
import { ReleaseCard } from '../components/release-card.js';
import { languageName, plural } from '../format.js';
import { usePageTitle } from '../page-title.js';
import {
  emptyReleaseQuery,
  formatReleaseQuery,
  hasFilters,
  parseReleaseQuery,
  toggleValue,
  type ReleaseFilter,
  type ReleaseQuery,
} from '../release-query.js';
import { navigate, useLocation } from '../router.js';
import { routes } from '../routes.js';

const sortLabels: Record<SortOrder, string> = { '-release_date': 'Newest first', release_date: 'Oldest first' };

const filterLabels: Record<ReleaseFilter, { label: string; searchLabel: string }> = {
  vocaloid_banks: { label: 'Voice banks', searchLabel: 'Find a voice bank' },
  genres: { label: 'Genres', searchLabel: 'Find a genre' },
  languages: { label: 'Languages', searchLabel: 'Find a language' },
};

function describeLanguage(tag: string): string {
  const name = languageName(tag);
  return name === tag ? tag : `${name} (${tag})`;
}

type Loaded<T> = { status: 'ready'; value: T } | { status: 'error'; error: string };

interface ListResult {
  /** The query (as its URL form) and attempt this result answers: a newer one means it is stale. */
  key: string;
  attempt: number;
  releases: Release[];
  nextCursor: string;
  error?: string;
  more: 'idle' | 'loading' | 'error';
  moreError?: string;
  /** The first release of the last page loaded by "Load more": it takes the focus. */
  focusId?: string;
}

/** The filters' facets: loaded once per visit, with a retry. */
function useFacets() {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [facets, setFacets] = useState<(Loaded<Facets> & { attempt: number }) | undefined>();
  useEffect(() => {
    const controller = new AbortController();
    api.facets(controller.signal).then(
      (value) => setFacets({ status: 'ready', value, attempt }),
      (error: unknown) => {
        if (!controller.signal.aborted) setFacets({ status: 'error', error: errorMessage(error), attempt });
      },
    );
    return () => controller.abort();
  }, [api, attempt]);
  const current = facets?.attempt === attempt ? facets : undefined;
  return { facets: current, retry: () => setAttempt((n) => n + 1) };
}

/**
 * The first page for the query in the URL, then "Load more" by cursor. Results are appended: cards already
 * shown never move. A result remembers which query it answers, so an answer that arrives after the filters
 * changed is never shown, and "loading" is simply "no result for this query yet".
 */
function useReleaseList(key: string) {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [result, setResult] = useState<ListResult | undefined>();

  useEffect(() => {
    const controller = new AbortController();
    api.releases(parseReleaseQuery(key), undefined, controller.signal).then(
      (page) => setResult({ key, attempt, ...page, more: 'idle' }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setResult({ key, attempt, releases: [], nextCursor: '', error: errorMessage(error), more: 'idle' });
      },
    );
    return () => controller.abort();
  }, [api, key, attempt]);

  const current = result?.key === key && result.attempt === attempt ? result : undefined;

  const loadMore = () => {
    if (!current?.nextCursor || current.more === 'loading') return;
    const answers = (r: ListResult | undefined): r is ListResult => r?.key === key && r.attempt === attempt;
    setResult((r) => (answers(r) ? { ...r, more: 'loading' } : r));
    api.releases(parseReleaseQuery(key), current.nextCursor).then(
      (page) =>
        setResult((r) => {
          if (!answers(r)) return r;
          const [first] = page.releases;
          return {
            ...r,
            releases: [...r.releases, ...page.releases],
            nextCursor: page.nextCursor,
            more: 'idle',
            ...(first ? { focusId: first.id } : {}),
          };
        }),
      (error: unknown) => setResult((r) => (answers(r) ? { ...r, more: 'error', moreError: errorMessage(error) } : r)),
    );
  };

  // Keyboard and screen-reader users continue at the first new card, not back at the (moved) button.
  const focusId = current?.focusId;
  useEffect(() => {
    if (focusId) document.getElementById(`release-${focusId}`)?.focus();
  }, [focusId]);

  return {
    /** The result for the current query, or the previous one (shown dimmed) while it loads. */
    shown: current ?? result,
    loading: current === undefined,
    retry: () => setAttempt((n) => n + 1),
    loadMore,
  };
}

export function ReleasesPage() {
  usePageTitle('Releases');
  const { search } = useLocation();
  const query = useMemo(() => parseReleaseQuery(search), [search]);
  const key = formatReleaseQuery(query);
  const { facets, retry: retryFacets } = useFacets();
  const list = useReleaseList(key);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const id = useId();

  // Every change of filters or sort is a new history entry: Back undoes it.
  const show = (next: ReleaseQuery) => navigate(`${routes.releases}${formatReleaseQuery(next)}`);

  const { shown, loading } = list;
  const releases = shown?.releases ?? [];
  const chosenCount = query.vocaloid_banks.length + query.genres.length + query.languages.length;

  let status: string;
  if (loading) status = 'Loading releases…';
  else if (shown?.error) status = 'The releases could not be loaded.';
  else if (releases.length === 0) status = 'No releases match these filters.';
  else if (shown?.more === 'loading') status = 'Loading more releases…';
  else
    status = `${plural(releases.length, 'release', 'releases')} shown${shown?.nextCursor ? ', more available' : ''}.`;

  return (
    <div className="releases-page">
      <h1 tabIndex={-1}>Releases</h1>
      <div className="releases-layout">
        <aside className="filters" aria-labelledby={`${id}-filters`}>
          <div className="filters-head">
            <h2 id={`${id}-filters`}>Filters</h2>
            <button
              type="button"
              className="secondary filters-toggle"
              aria-expanded={filtersOpen}
              aria-controls={`${id}-panel`}
              onClick={() => setFiltersOpen((open) => !open)}
            >
              {filtersOpen ? 'Hide filters' : 'Show filters'}
              {chosenCount > 0 ? ` (${chosenCount} chosen)` : ''}
            </button>
          </div>
          <div id={`${id}-panel`} className="filters-panel" data-open={filtersOpen}>
            <div className="field">
              <label htmlFor={`${id}-sort`}>Sort</label>
              <select
                id={`${id}-sort`}
                value={query.sort}
                onChange={(event) =>
                  show({ ...query, sort: sortOrders.find((o) => o === event.target.value) ?? query.sort })
                }
              >
                {sortOrders.map((order) => (
                  <option key={order} value={order}>
                    {sortLabels[order]}
                  </option>
                ))}
              </select>
            </div>
            {facets?.status === 'error' && (
              <div className="problem" role="alert">
                <p>The filters could not be loaded: {facets.error}</p>
                <button type="button" onClick={retryFacets}>
                  Retry
                </button>
              </div>
            )}
            {(['vocaloid_banks', 'genres', 'languages'] as const).map((filter) => (
              <FacetFilter
                key={filter}
                {...filterLabels[filter]}
                options={facets?.status === 'ready' ? facets.value[filter] : facets ? [] : undefined}
                chosen={query[filter]}
                onToggle={(value) => show(toggleValue(query, filter, value))}
                {...(filter === 'languages' ? { describe: describeLanguage } : {})}
              />
            ))}
            {hasFilters(query) && (
              <button
                type="button"
                className="secondary"
                onClick={() => show({ ...emptyReleaseQuery, sort: query.sort })}
              >
                Clear filters
              </button>
            )}
          </div>
        </aside>

        <section className="results" aria-labelledby={`${id}-results`} aria-busy={loading}>
          <h2 id={`${id}-results`} className="visually-hidden">
            Results
          </h2>
          <p role="status" className="results-status">
            {status}
          </p>
          {shown?.error && !loading ? (
            <div className="problem" role="alert">
              <p>{shown.error}</p>
              <button type="button" onClick={list.retry}>
                Retry
              </button>
            </div>
          ) : (
            <>
              {!loading && releases.length === 0 && hasFilters(query) && (
                <p>
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => show({ ...emptyReleaseQuery, sort: query.sort })}
                  >
                    Clear filters
                  </button>
                </p>
              )}
              <ol className="release-list" data-stale={loading || undefined}>
                {releases.map((release) => (
                  <li key={release.id}>
                    <ReleaseCard release={release} id={`release-${release.id}`} />
                  </li>
                ))}
              </ol>
              {shown?.more === 'error' && (
                <div className="problem" role="alert">
                  <p>More releases could not be loaded: {shown.moreError}</p>
                </div>
              )}
              {!loading && shown?.nextCursor && (
                <button
                  type="button"
                  className="load-more"
                  onClick={list.loadMore}
                  aria-disabled={shown.more === 'loading'}
                >
                  Load more
                </button>
              )}
            </>
          )}
        </section>
      </div>
    </div>
  );
}
