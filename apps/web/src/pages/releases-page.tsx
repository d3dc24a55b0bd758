import { limits, releaseFilterParameters, type SortOrder } from '@releases/contract/wire';
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import {
  errorMessage,
  isSignedOutError,
  retryDelay,
  type Api,
  type Facets,
  type FacetValue,
  type Release,
} from '../api.js';
import { useApi } from '../api-context.js';
import { BoundedMemory } from '../bounded-memory.js';
import { FacetFilter } from '../components/facet-filter.js';
import { ReleaseCard } from '../components/release-card.js';
import { RetryCountdown } from '../components/retry-countdown.js';
import { SearchBox } from '../components/search-box.js';
import { languageName, plural } from '../format.js';
import { recallList, rememberList, rememberOpened } from '../list-memory.js';
import { usePageTitle } from '../page-title.js';
import {
  formatCatalogueQuery,
  formatReleaseQuery,
  hasFilters,
  parseReleaseQuery,
  readReleaseQuery,
  sortOrdersFor,
  toggleValue,
  withoutFilters,
  withSearch,
  type DroppedPart,
  type ReleaseFilter,
  type ReleaseQuery,
} from '../release-query.js';
import {
  arrivedByHistory,
  entryState,
  historyEntry,
  navigate,
  savedScrollPosition,
  updateEntryState,
  useLocation,
} from '../router.js';
import { routes } from '../routes.js';
import { useOptionalSession } from '../session.js';

const sortLabels: Record<SortOrder, string> = {
  relevance: 'Relevance',
  '-release_date': 'Newest first',
  release_date: 'Oldest first',
};

const filterLabels: Record<ReleaseFilter, { label: string; searchLabel: string; chip: string }> = {
  vocaloid_banks: { label: 'Voice banks', searchLabel: 'Find a voice bank', chip: 'Voice bank' },
  genres: { label: 'Genres', searchLabel: 'Find a genre', chip: 'Genre' },
  languages: { label: 'Languages', searchLabel: 'Find a language', chip: 'Language' },
};
/** The filters, in the contract's order: a filter added there shows up here (and `filterLabels` must name it). */
const filters = releaseFilterParameters;

/**
 * How long the list waits after a change made here (a box ticked, a letter typed) before asking the server:
 * ticking fourteen boxes in a row is one request, not fourteen, and typing "melt" is one, not four. Back,
 * Forward and a fresh page ask at once.
 */
const inputSettleMs = 300;

function describeLanguage(tag: string): string {
  const name = languageName(tag);
  return name === tag ? tag : `${name} (${tag})`;
}

/** A failed read: its message, and when it is retried by itself (a 429's `Retry-After`). */
interface Failure {
  error: string;
  retryAt?: number | undefined;
}

function failure(error: unknown): Failure {
  const wait = retryDelay(error);
  return { error: errorMessage(error), retryAt: wait === undefined ? undefined : Date.now() + wait };
}

type FacetsAnswer = ({ status: 'ready'; value: Facets } | ({ status: 'error' } & Failure)) & {
  key: string;
  attempt: number;
};

/**
 * Facets answers by query (`formatCatalogueQuery`), so Back to a list shows its counts at once and the whole
 * catalogue's are asked once per few minutes, not on every return to the page. Kept per API (one in the app,
 * a fresh fake in each test).
 */
const facetsMemories = new WeakMap<Api, BoundedMemory<Facets>>();
function facetsMemory(api: Api): BoundedMemory<Facets> {
  let memory = facetsMemories.get(api);
  if (!memory) facetsMemories.set(api, (memory = new BoundedMemory<Facets>({ max: 20, ttlMs: 5 * 60_000 })));
  return memory;
}

/**
 * The facets for a query (by its `formatCatalogueQuery` form; `''` is the whole catalogue, `undefined` asks
 * nothing), retried after a 429's wait or on request. `answer` is the answer for this query (undefined while it
 * loads); `latest` the last one that arrived for any query, to show (dimmed) meanwhile.
 */
function useFacets(key: string | undefined) {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<{ answer?: FacetsAnswer; latest?: Facets }>({});
  const answers = (answer: FacetsAnswer | undefined) => answer?.key === key && answer?.attempt === attempt;
  // Asked before (Back to a list): shown at once, without asking again.
  const remembered = useMemo(
    () => (key === undefined || answers(state.answer) ? undefined : facetsMemory(api).get(key)),
    // Looked up once per query; the answer it stands in for is not a reason to look again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [api, key, attempt],
  );
  useEffect(() => {
    if (key === undefined || remembered || answers(state.answer)) return;
    const controller = new AbortController();
    api.facets(parseReleaseQuery(key), controller.signal).then(
      (value) => {
        facetsMemory(api).set(key, value);
        setState({ answer: { status: 'ready', value, key, attempt }, latest: value });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((s) => ({ ...s, answer: { status: 'error', ...failure(error), key, attempt } }));
      },
    );
    return () => controller.abort();
    // `state` is read only to skip a query that is already answered.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, key, attempt, remembered]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  const answer: FacetsAnswer | undefined = answers(state.answer)
    ? state.answer
    : remembered && key !== undefined
      ? { status: 'ready', value: remembered, key, attempt }
      : undefined;
  return { answer, latest: answer?.status === 'ready' ? answer.value : state.latest, retry };
}

/**
 * The values a filter offers: every value of the whole catalogue, in its order (most common first), so a
 * checkbox never moves or vanishes under the cursor as the query changes, and any the query's answer adds;
 * each counted in context, 0 when the query's answer leaves it out.
 */
function valuesInContext(all: FacetValue[] | undefined, inContext: FacetValue[] | undefined): FacetValue[] | undefined {
  if (!inContext) return all;
  const counts = new Map(inContext.map(({ value, count }) => [value.toLowerCase(), count]));
  const listed = new Set(all?.map(({ value }) => value.toLowerCase()));
  return [
    ...(all ?? []).map(({ value }) => ({ value, count: counts.get(value.toLowerCase()) ?? 0 })),
    ...inContext.filter(({ value }) => !listed.has(value.toLowerCase())),
  ];
}

interface ListResult {
  /** The query (as its URL form) and attempt this result answers: a newer one means it is stale. */
  key: string;
  attempt: number;
  releases: Release[];
  nextCursor: string;
  failure?: Failure | undefined;
  more: 'idle' | 'loading' | 'error';
  moreFailure?: Failure | undefined;
  /** The first release of the last page loaded by "Load more": it takes the focus. */
  focusId?: string | undefined;
  /** Put back from memory (Back): the page restores its scroll position and focus. */
  restored?: { focusId?: string | undefined } | undefined;
}

/** The list as this history entry last showed it, if it showed this query. */
function recalled(entry: string, key: string, attempt: number): ListResult | undefined {
  const list = recallList(entry, key);
  if (!list) return undefined;
  return {
    key,
    attempt,
    releases: list.releases,
    nextCursor: list.nextCursor,
    more: 'idle',
    restored: { focusId: list.focusId },
  };
}

/**
 * The first page for the query, then "Load more" by cursor. Results are appended: cards already shown never
 * move. A result remembers which query it answers, so an answer that arrives after the filters changed is
 * never shown, and "loading" is simply "no result for this query yet". Each history entry's list is kept in
 * memory, so returning to it (Back) shows it as it was, pages and all, without asking again.
 */
function useReleaseList(key: string, entry: string) {
  const api = useApi();
  const signedOut = useOptionalSession()?.signedOut;
  const [attempt, setAttempt] = useState(0);
  const [result, setResult] = useState<ListResult | undefined>(() => recalled(entry, key, 0));

  // Back to an entry whose list is in memory: shown as it was, without asking the server again.
  const remembered = useMemo(
    () => (result?.key === key && result.attempt === attempt ? undefined : recalled(entry, key, attempt)),
    // Looked up once per entry, query and attempt; the result it stands in for is not a reason to look again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [entry, key, attempt],
  );

  useEffect(() => {
    if (remembered || (result?.key === key && result.attempt === attempt)) return;
    const controller = new AbortController();
    // Back to this entry after leaving the app (another site, a reload): memory is gone, but the entry's
    // state says how many releases it showed; they are fetched again, in as few requests as the API allows.
    const state = entryState();
    const wanted = state.listKey === key && typeof state.listCount === 'number' ? state.listCount : 0;
    const restoring = wanted > limits.defaultPageSize;
    const load = async () => {
      const query = parseReleaseQuery(key);
      if (!restoring) return await api.releases(query, undefined, controller.signal);
      let page = await api.releases(query, undefined, controller.signal, Math.min(wanted, limits.maxPageSize));
      const releases = [...page.releases];
      while (releases.length < wanted && page.nextCursor) {
        const limit = Math.min(wanted - releases.length, limits.maxPageSize);
        page = await api.releases(query, page.nextCursor, controller.signal, limit);
        releases.push(...page.releases);
      }
      return { releases, nextCursor: page.nextCursor };
    };
    load().then(
      (page) => setResult({ key, attempt, ...page, more: 'idle', ...(restoring ? { restored: {} } : {}) }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        if (isSignedOutError(error)) {
          // The session cookie stopped working (the server cleared it): browse on without it.
          signedOut?.();
          setAttempt((n) => n + 1);
          return;
        }
        setResult({ key, attempt, releases: [], nextCursor: '', failure: failure(error), more: 'idle' });
      },
    );
    return () => controller.abort();
    // `result` is read only to skip a fetch that is already answered.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, key, attempt, entry, signedOut, remembered]);

  const current = result?.key === key && result.attempt === attempt ? result : remembered;

  // What this entry shows is kept for Back (without the transient states).
  useEffect(() => {
    if (current && !current.failure) {
      rememberList(entry, { key, releases: current.releases, nextCursor: current.nextCursor });
      updateEntryState({ listKey: key, listCount: current.releases.length });
    }
  }, [current, entry, key]);

  const loadMore = () => {
    if (!current?.nextCursor || current.more === 'loading') return;
    const answers = (r: ListResult | undefined): r is ListResult => r?.key === key && r.attempt === attempt;
    const base = current;
    setResult((r) => ({ ...(answers(r) ? r : base), more: 'loading', moreFailure: undefined }));
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
            restored: undefined,
            ...(first ? { focusId: first.id } : {}),
          };
        }),
      (error: unknown) => setResult((r) => (answers(r) ? { ...r, more: 'error', moreFailure: failure(error) } : r)),
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
    retry: useCallback(() => setAttempt((n) => n + 1), []),
    loadMore,
  };
}

/**
 * Changes made here reach the list after `inputSettleMs` of quiet; Back, Forward and the first load at once,
 * and `settleNow` (Enter in the search box) too.
 */
function useSettledKey(key: string): { settled: string; settleNow: () => void } {
  const [settled, setSettled] = useState(key);
  const byHistory = arrivedByHistory();
  useEffect(() => {
    if (key === settled) return;
    const timer = setTimeout(() => setSettled(key), byHistory ? 0 : inputSettleMs);
    return () => clearTimeout(timer);
  }, [key, settled, byHistory]);
  return { settled: byHistory ? key : settled, settleNow: () => setSettled(key) };
}

const parameterNames: Record<string, string> = { q: 'Search', sort: 'Sort' };

/** A value from the address as the notice quotes it: control characters shown as such, a long one cut short. */
function quoted(value: string): string {
  // eslint-disable-next-line no-control-regex -- the point is to make them visible
  const visible = value.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu, '\ufffd');
  const characters = [...visible];
  return characters.length > 40 ? `${characters.slice(0, 40).join('')}…` : visible;
}

function droppedNotice(dropped: DroppedPart[]): string {
  const parts = dropped.map(({ parameter, value, reason }) => {
    const name = filterLabels[parameter as ReleaseFilter]?.label ?? parameterNames[parameter] ?? parameter;
    return value ? `“${quoted(value)}” (${name}) ${reason}` : `${name} ${reason}`;
  });
  return `Part of this address could not be used, so it was left out: ${parts.join('; ')}.`;
}

export function ReleasesPage() {
  usePageTitle('Releases');
  const { search } = useLocation();
  const read = useMemo(() => readReleaseQuery(search), [search]);
  const query = read.query;
  const key = formatReleaseQuery(query);
  const { settled: settledKey, settleNow } = useSettledKey(key);
  const entry = historyEntry();
  const list = useReleaseList(settledKey, entry);
  // The whole catalogue's facets give every filter its values; the query's give the counts in context and
  // the number of matches. Without filters or search they are one and the same request.
  const contextKey = formatCatalogueQuery(parseReleaseQuery(settledKey));
  const allFacets = useFacets('');
  const queryFacets = useFacets(contextKey === '' ? undefined : contextKey);
  const inContext = contextKey === '' ? allFacets : queryFacets;
  const currentFacets = inContext.answer?.status === 'ready' ? inContext.answer.value : undefined;
  // While the query's answer is on its way, the last one (or the whole catalogue's) is shown, dimmed.
  const shownFacets = currentFacets ?? (contextKey === '' ? undefined : (queryFacets.latest ?? allFacets.latest));
  const facetsFailure =
    allFacets.answer?.status === 'error'
      ? { what: 'The filters could not be loaded', failure: allFacets.answer, retry: allFacets.retry }
      : inContext.answer?.status === 'error'
        ? { what: 'The counts could not be loaded', failure: inContext.answer, retry: inContext.retry }
        : undefined;
  // Typing a search is one history entry however many letters it takes: the first edit adds an entry, the
  // next ones replace it, until something else (a filter, Back) happens.
  const typingIn = useRef<string | undefined>(undefined);
  const [filtersOpen, setFiltersOpen] = useState(false);
  // A hand-edited address with values the API would refuse: they are left out, the address is corrected in
  // place (no new history entry), and the page says what was dropped rather than showing an error. Addresses
  // are edited by hand before a page loads, so the address the page opened with is the one to tell about.
  const [notice, setNotice] = useState<string | undefined>(() => {
    const { dropped } = readReleaseQuery(window.location.search);
    return dropped.length > 0 ? droppedNotice(dropped) : undefined;
  });
  const id = useId();
  useEffect(() => {
    if (read.dropped.length > 0) navigate(`${routes.releases}${key}`, { replace: true });
  }, [read, key]);

  // Every change of filters or sort is a new history entry: Back undoes it.
  const show = (next: ReleaseQuery) => {
    setNotice(undefined);
    navigate(`${routes.releases}${formatReleaseQuery(next)}`);
  };
  const searchFor = (text: string) => {
    const next = withSearch(query, text);
    if (next.q === query.q && next.sort === query.sort) return;
    setNotice(undefined);
    navigate(`${routes.releases}${formatReleaseQuery(next)}`, { replace: typingIn.current === historyEntry() });
    typingIn.current = historyEntry();
  };

  const { shown, loading: fetching } = list;
  const settling = settledKey !== key;
  const loading = fetching || settling;
  const releases = shown?.releases ?? [];
  const searching = query.q !== '';
  const chosenCount = query.vocaloid_banks.length + query.genres.length + query.languages.length;

  // Back to this list: its scroll position and the focus on the release that was opened, once it is drawn.
  const restoredFor = useRef<ListResult['restored']>(undefined);
  useLayoutEffect(() => {
    const restored = shown?.restored;
    if (!restored || restoredFor.current === restored || loading) return;
    restoredFor.current = restored;
    const position = savedScrollPosition(entry);
    if (position !== undefined) window.scrollTo({ top: position, behavior: 'instant' });
    if (restored.focusId) document.getElementById(`release-${restored.focusId}`)?.focus({ preventScroll: true });
  }, [shown, loading, entry]);

  // The list's own progress; how many releases match is said by the count above it.
  let status: string;
  if (loading && !shown) status = 'Loading releases…';
  else if (loading) status = 'Updating the list…';
  else if (shown?.failure) status = 'The releases could not be loaded.';
  else if (releases.length === 0) status = '';
  else if (shown?.more === 'loading') status = 'Loading more releases…';
  else
    status = `${plural(releases.length, 'release', 'releases')} shown${shown?.nextCursor ? ', more available' : ''}.`;

  // The number of matches: the facets' total for this query; a whole list (no more pages) counts itself when
  // the facets are missing; until then the last number, dimmed.
  const listComplete = !loading && shown !== undefined && !shown.failure && !shown.nextCursor;
  const total = currentFacets?.total ?? (listComplete ? releases.length : shownFacets?.total);
  const totalStale = currentFacets === undefined && !listComplete;
  let countText = '';
  if (total === 0) countText = 'No releases match';
  else if (total !== undefined) countText = plural(total, 'release', 'releases');

  const chips = filters.flatMap((filter) => query[filter].map((value) => ({ filter, value })));

  return (
    <div className="releases-page" data-keep-focus={shown?.restored ? true : undefined}>
      <h1 tabIndex={-1}>Releases</h1>
      <SearchBox value={query.q} onSearch={searchFor} onSubmit={settleNow} />
      {notice && (
        <div className="notice" role="alert">
          <p>{notice}</p>
          <button type="button" className="secondary" onClick={() => setNotice(undefined)}>
            Dismiss
          </button>
        </div>
      )}
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
                  show({
                    ...query,
                    sort: sortOrdersFor(query.q).find((o) => o === event.target.value) ?? query.sort,
                  })
                }
              >
                {sortOrdersFor(query.q).map((order) => (
                  <option key={order} value={order}>
                    {sortLabels[order]}
                  </option>
                ))}
              </select>
            </div>
            {facetsFailure &&
              (facetsFailure.failure.retryAt ? (
                <RetryCountdown
                  what={facetsFailure.what}
                  at={facetsFailure.failure.retryAt}
                  onRetry={facetsFailure.retry}
                />
              ) : (
                <div className="problem" role="alert">
                  <p>
                    {facetsFailure.what}: {facetsFailure.failure.error}
                  </p>
                  <button type="button" onClick={facetsFailure.retry}>
                    Retry
                  </button>
                </div>
              ))}
            {filters.map((filter) => (
              <FacetFilter
                key={filter}
                label={filterLabels[filter].label}
                searchLabel={filterLabels[filter].searchLabel}
                options={
                  valuesInContext(allFacets.latest?.[filter], shownFacets?.[filter]) ??
                  (allFacets.answer?.status === 'error' ? [] : undefined)
                }
                stale={shownFacets !== undefined && shownFacets !== currentFacets}
                chosen={query[filter]}
                onToggle={(value) => show(toggleValue(query, filter, value))}
                {...(filter === 'languages' ? { describe: describeLanguage } : {})}
              />
            ))}
            {hasFilters(query) && (
              <button type="button" className="secondary" onClick={() => show(withoutFilters(query))}>
                Clear filters
              </button>
            )}
          </div>
        </aside>

        <section className="results" aria-labelledby={`${id}-results`} aria-busy={loading}>
          <h2 id={`${id}-results`} className="visually-hidden">
            Results
          </h2>
          <p className="results-count" aria-live="polite" aria-atomic="true" data-stale={totalStale || undefined}>
            {countText}
          </p>
          {chips.length > 0 && (
            <div className="chips">
              <ul aria-label="Chosen filters">
                {chips.map(({ filter, value }) => (
                  <li key={`${filter}:${value}`}>
                    <button type="button" className="chip" onClick={() => show(toggleValue(query, filter, value))}>
                      <span className="chip-kind">{filterLabels[filter].chip}:</span>{' '}
                      {filter === 'languages' ? describeLanguage(value) : value}
                      <span className="visually-hidden">, remove</span>
                      <span aria-hidden="true" className="chip-x">
                        ×
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
              {chips.length > 1 && (
                <button type="button" className="link-button" onClick={() => show(withoutFilters(query))}>
                  Clear all
                </button>
              )}
            </div>
          )}
          <p role="status" className="results-status">
            {status}
          </p>
          {shown?.failure && !loading ? (
            shown.failure.retryAt ? (
              <RetryCountdown what="The releases could not be loaded" at={shown.failure.retryAt} onRetry={list.retry} />
            ) : (
              <div className="problem" role="alert">
                <p>{shown.failure.error}</p>
                <button type="button" onClick={list.retry}>
                  Retry
                </button>
              </div>
            )
          ) : (
            <>
              {!loading && releases.length === 0 && (hasFilters(query) || searching) && (
                <p className="empty-actions">
                  {hasFilters(query) && (
                    <button type="button" className="secondary" onClick={() => show(withoutFilters(query))}>
                      Clear filters
                    </button>
                  )}
                  {searching && (
                    <button type="button" className="secondary" onClick={() => show(withSearch(query, ''))}>
                      Clear search
                    </button>
                  )}
                </p>
              )}
              <ol className="release-list" data-stale={(loading && shown !== undefined) || undefined}>
                {releases.map((release) => (
                  <li key={release.id}>
                    <ReleaseCard
                      release={release}
                      id={`release-${release.id}`}
                      onOpen={() => rememberOpened(entry, release.id)}
                    />
                  </li>
                ))}
                {/* Until the first answer, the space the first page's cards will take: nothing below jumps. */}
                {!shown &&
                  Array.from({ length: limits.defaultPageSize }, (_, n) => (
                    <li key={`placeholder-${n}`} className="release-placeholder" aria-hidden="true" />
                  ))}
              </ol>
              {shown?.more === 'error' &&
                (shown.moreFailure?.retryAt ? (
                  <RetryCountdown
                    what="More releases could not be loaded"
                    at={shown.moreFailure.retryAt}
                    onRetry={list.loadMore}
                  />
                ) : (
                  <div className="problem" role="alert">
                    <p>More releases could not be loaded: {shown.moreFailure?.error}</p>
                  </div>
                ))}
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
